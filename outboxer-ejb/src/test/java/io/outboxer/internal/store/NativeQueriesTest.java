package io.outboxer.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NativeQueriesTest {

  @Test
  void idsBecomeOneJsonArrayOfNumbersWithNothingButDigitsCommasAndBrackets() {
    assertThat(NativeQueries.idArray(List.of(1L, 20L, 9_007_199_254_740_993L)))
        .isEqualTo("[1,20,9007199254740993]");
    assertThat(NativeQueries.idArray(List.of())).isEqualTo("[]");
  }

  @Test
  void groupKeysBecomeOneJsonArrayOfEscapedStrings() {
    assertThat(NativeQueries.keyArray(List.of("order:1", "a \"quoted\" key", "back\\slash")))
        .isEqualTo("[\"order:1\",\"a \\\"quoted\\\" key\",\"back\\\\slash\"]");
  }
}
