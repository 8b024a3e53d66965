package io.outboxer.bench;

import java.util.Map;

/**
 * One row of the report: the product's figure beside its reference measured in the same run (the
 * limit pipeline, or the product under the scenario's easier condition), and the target ratio.
 *
 * @param higherIsBetter true for throughputs, false for times and latencies
 * @param target the ratio product / reference the issue asks for: at least it when higher is
 *     better, at most it otherwise (NaN: no target)
 * @param cpu per component, the CPU cores it used on average during the product's and the
 *     reference's runs (empty when not measured)
 */
record Result(
    String id,
    String title,
    String reference,
    boolean higherIsBetter,
    Figure product,
    Figure limit,
    double target,
    String note,
    Map<String, Map<String, Double>> cpu) {

  /** Product / reference, of the medians. */
  double ratio() {
    return product.median() / limit.median();
  }

  /** The product's performance as a fraction of the reference's: 1 is as good, above is better. */
  double performance() {
    return higherIsBetter ? ratio() : 1 / ratio();
  }

  /** Whether the target holds; null when the row has none. */
  Boolean met() {
    if (Double.isNaN(target)) {
      return null;
    }
    return higherIsBetter ? ratio() >= target : ratio() <= target;
  }
}
