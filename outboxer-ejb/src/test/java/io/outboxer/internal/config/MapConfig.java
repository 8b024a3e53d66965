package io.outboxer.internal.config;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;

/**
 * A MicroProfile Config over a map of strings, for testing how settings are read. Like the
 * environment source of MicroProfile Config, it also finds {@code a.b-c} under {@code A_B_C}.
 */
final class MapConfig implements Config {

  private final Map<String, String> values;

  MapConfig(Map<String, String> values) {
    this.values = values;
  }

  @Override
  public <T> T getValue(String name, Class<T> type) {
    return getOptionalValue(name, type).orElseThrow(() -> new NoSuchElementException(name));
  }

  @Override
  public ConfigValue getConfigValue(String name) {
    throw new UnsupportedOperationException();
  }

  @Override
  public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
    String value = values.get(name);
    if (value == null) {
      value = values.get(name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(java.util.Locale.ROOT));
    }
    return Optional.ofNullable(value).map(type::cast);
  }

  @Override
  public Iterable<String> getPropertyNames() {
    return values.keySet();
  }

  @Override
  public Iterable<ConfigSource> getConfigSources() {
    throw new UnsupportedOperationException();
  }

  @Override
  public <T> Optional<Converter<T>> getConverter(Class<T> forType) {
    return Optional.empty();
  }

  @Override
  public <T> T unwrap(Class<T> type) {
    throw new UnsupportedOperationException();
  }
}
