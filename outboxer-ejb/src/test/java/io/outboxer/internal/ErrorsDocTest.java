package io.outboxer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/errors.md lists every {@code OUTBOXER-} id the product's code uses, each once, and no other:
 * the ids of every module's main sources against the rows of the page's tables.
 */
class ErrorsDocTest {

  private static final Pattern ID = Pattern.compile("OUTBOXER-\\d{4}");
  private static final Pattern ROW =
      Pattern.compile("^\\| (OUTBOXER-\\d{4}) \\|", Pattern.MULTILINE);

  /** The checkout: this module's parent. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void theErrorsPageListsEveryIdTheCodeUsesAndNoOther() throws IOException {
    Set<String> inCode = new TreeSet<>();
    try (Stream<Path> modules = Files.list(ROOT)) {
      modules
          .map(module -> module.resolve("src/main/java"))
          .filter(Files::isDirectory)
          .forEach(sources -> inCode.addAll(idsUnder(sources)));
    }
    String page = Files.readString(ROOT.resolve("docs/errors.md"));
    Set<String> listed = new TreeSet<>();
    Matcher row = ROW.matcher(page);
    while (row.find()) {
      assertThat(listed.add(row.group(1))).as("%s listed once", row.group(1)).isTrue();
    }

    assertThat(inCode).as("ids in the code").hasSizeGreaterThan(40);
    assertThat(listed).as("ids docs/errors.md lists").isEqualTo(inCode);
  }

  private static Set<String> idsUnder(Path sources) {
    Set<String> ids = new TreeSet<>();
    try (Stream<Path> files = Files.walk(sources)) {
      files
          .filter(f -> f.toString().endsWith(".java"))
          .forEach(
              f -> {
                try {
                  Matcher m = ID.matcher(Files.readString(f));
                  while (m.find()) {
                    ids.add(m.group());
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }
}
