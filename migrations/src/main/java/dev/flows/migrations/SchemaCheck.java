package dev.flows.migrations;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * Whether a database already holds this build's schema, answered with one query of Flyway's history
 * table and without starting Flyway (which scans, loads plugins and reads the database's metadata:
 * most of a short command's time). {@code true} only when every versioned migration of this build
 * is applied and each repeatable one was last applied with this build's text; anything else ({@code
 * false}) is for {@link Migrations#pending()} to explain.
 */
public final class SchemaCheck {
  private static final String DIRECTORY = "db/migration";
  private static final Pattern VERSIONED = Pattern.compile("V([0-9_.]+)__.+\\.sql");
  private static final Pattern REPEATABLE = Pattern.compile("R__(.+)\\.sql");
  private static final String HISTORY =
      "SELECT version, description, checksum FROM "
          + Migrations.SCHEMA
          + ".flyway_schema_history WHERE success ORDER BY installed_rank";
  private static final char BOM = '\uFEFF';

  /** This build's migrations: versions, and each repeatable one's description and checksum. */
  record Expected(Set<String> versions, Map<String, Integer> repeatables) {}

  private static volatile Expected expected;

  private SchemaCheck() {}

  /** One query on {@code c}: true when nothing of this build is pending in the database. */
  public static boolean current(Connection c) throws SQLException {
    Expected want = expected();
    Set<String> applied = new HashSet<>();
    Map<String, Integer> lastRepeatable = new TreeMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs = readHistory(st)) {
      if (rs == null) {
        return false;
      }
      while (rs.next()) {
        String version = rs.getString(1);
        if (version == null) {
          lastRepeatable.put(rs.getString(2), rs.getInt(3));
        } else {
          applied.add(version);
        }
      }
    }
    // Other rows without a version (Flyway's own "schema creation" marker) are not migrations.
    return applied.containsAll(want.versions())
        && want.repeatables().entrySet().stream()
            .allMatch(r -> r.getValue().equals(lastRepeatable.get(r.getKey())));
  }

  /** The history, or null when there is none yet (a database never migrated). */
  private static ResultSet readHistory(Statement st) throws SQLException {
    boolean savedAutoCommit = st.getConnection().getAutoCommit();
    if (!savedAutoCommit) {
      // Inside a caller's transaction a missing table would abort it: look first.
      try (ResultSet rs =
          st.executeQuery(
              "SELECT to_regclass('" + Migrations.SCHEMA + ".flyway_schema_history') IS NULL")) {
        rs.next();
        if (rs.getBoolean(1)) {
          return null;
        }
      }
      return st.executeQuery(HISTORY);
    }
    try {
      return st.executeQuery(HISTORY);
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
        return null;
      }
      throw e;
    }
  }

  static Expected expected() {
    Expected e = expected;
    if (e == null) {
      e = read();
      expected = e;
    }
    return e;
  }

  private static Expected read() {
    Set<String> versions = new HashSet<>();
    Map<String, Integer> repeatables = new TreeMap<>();
    for (String name : names()) {
      Matcher v = VERSIONED.matcher(name);
      Matcher r = REPEATABLE.matcher(name);
      if (v.matches()) {
        versions.add(v.group(1).replace('_', '.'));
      } else if (r.matches()) {
        repeatables.put(r.group(1).replace('_', ' '), checksum(DIRECTORY + "/" + name));
      }
    }
    return new Expected(Set.copyOf(versions), Map.copyOf(repeatables));
  }

  /** The file names under {@code db/migration}, in a jar or a directory of classes. */
  private static List<String> names() {
    ClassLoader loader = SchemaCheck.class.getClassLoader();
    URL dir = loader.getResource(DIRECTORY);
    if (dir == null) {
      throw new IllegalStateException("no " + DIRECTORY + " on the class path");
    }
    List<String> names = new ArrayList<>();
    try {
      if (dir.getProtocol().equals("jar")) {
        JarFile jar = ((JarURLConnection) dir.openConnection()).getJarFile();
        String prefix = DIRECTORY + "/";
        for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements(); ) {
          String n = en.nextElement().getName();
          if (n.startsWith(prefix) && n.indexOf('/', prefix.length()) < 0) {
            names.add(n.substring(prefix.length()));
          }
        }
      } else {
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
          files.map(p -> p.getFileName().toString()).forEach(names::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    return names;
  }

  /** Flyway's checksum of a resource: CRC-32 over its lines' UTF-8 bytes, without line ends. */
  static int checksum(String resource) {
    CRC32 crc = new CRC32();
    InputStream in =
        Optional.ofNullable(SchemaCheck.class.getClassLoader().getResourceAsStream(resource))
            .orElseThrow(() -> new IllegalStateException("no " + resource));
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        String text = !line.isEmpty() && line.charAt(0) == BOM ? line.substring(1) : line;
        crc.update(text.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (int) crc.getValue();
  }
}
