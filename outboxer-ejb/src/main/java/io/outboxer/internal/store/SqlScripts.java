package io.outboxer.internal.store;

import io.outboxer.OutboxException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the SQL files shipped in outboxer-jpa: the schema, and the named statements. */
final class SqlScripts {

  private static final String NAME = "-- name:";

  private SqlScripts() {}

  /** The text of the classpath resource {@code resource}. */
  static String read(String resource) {
    try (InputStream in = SqlScripts.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new OutboxException("OUTBOXER-1006 SQL resource " + resource + " not found");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new OutboxException("OUTBOXER-1006 cannot read SQL resource " + resource, e);
    }
  }

  /**
   * The statements of a script, each ended by a {@code ;} at the end of a line; comments left out.
   */
  static List<String> statements(String text) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("--")) {
        continue;
      }
      current.append(line).append('\n');
      if (trimmed.endsWith(";")) {
        String sql = current.toString().strip();
        statements.add(sql.substring(0, sql.length() - 1));
        current.setLength(0);
      }
    }
    return statements;
  }

  /**
   * The named statements of a file in which a line {@code -- name: NAME} opens each statement,
   * which runs to the next such line; other comment lines and blank lines are left out.
   */
  static Map<String, String> named(String text) {
    Map<String, String> named = new LinkedHashMap<>();
    String name = null;
    StringBuilder current = new StringBuilder();
    for (String line : (text + "\n" + NAME + " ").split("\n")) {
      String trimmed = line.strip();
      if (trimmed.startsWith(NAME)) {
        if (name != null) {
          if (named.put(name, current.toString().strip()) != null) {
            throw new IllegalArgumentException("statement " + name + " is named twice");
          }
        }
        name = trimmed.substring(NAME.length()).strip();
        current.setLength(0);
      } else if (!trimmed.isEmpty() && !trimmed.startsWith("--")) {
        current.append(line).append('\n');
      }
    }
    return named;
  }
}
