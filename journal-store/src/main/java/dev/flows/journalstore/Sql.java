package dev.flows.journalstore;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The journal's SQL, one statement per {@code sql/<name>.sql} resource beside this class. Public
 * for ops/bench, which sends the journal's memo statement bare.
 */
public final class Sql {
  private static final Map<String, String> CACHE = new ConcurrentHashMap<>();

  private Sql() {}

  public static String text(String name) {
    return CACHE.computeIfAbsent(name, Sql::load);
  }

  private static String load(String name) {
    String path = "sql/" + name + ".sql";
    try (InputStream in = Sql.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing SQL resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(path, e);
    }
  }
}
