package io.outboxer.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The repetitions of one measurement, in one unit: their median and spread. */
record Figure(String unit, List<Double> samples) {

  Figure {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("a figure needs at least one sample");
    }
    samples = List.copyOf(samples);
  }

  double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    return sorted().get(samples.size() - 1);
  }

  /** (max - min) / median: how far apart the repetitions lie. */
  double spread() {
    return median() == 0 ? 0 : (max() - min()) / median();
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    return sorted;
  }
}
