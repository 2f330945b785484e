package dev.flows.ops.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.postgresql.PGConnection;

/**
 * The secret arguments of the chaos load: each run of the mix sends a card number of its own
 * ({@link #PREFIX_PROPERTY}'s value, then {@code -N}) to the server's {@code echo} tool, marked
 * secret in code (argument and result), sealed under a key the workers hold in {@link #KEY_VAR}.
 * The body answers whether the server echoed the card it was sent (so the server received it in
 * clear, a re-send after a crash included); at the end the card prefix must be nowhere in the
 * database (every table's rows and the functions' sources) nor in the workers' logs.
 */
final class ChaosSecrets {
  /** The variable holding the sealing key, in every worker's environment. */
  static final String KEY_VAR = "FLOWS_CHAOS_SECRET_KEY";

  /**
   * The worker JVM property holding this chaos run's card prefix: where the journal never looks.
   */
  static final String PREFIX_PROPERTY = "flows.chaos.card";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String key;
  private final String prefix;

  ChaosSecrets() {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    this.key = Base64.getEncoder().encodeToString(k);
    this.prefix = "card-" + UUID.randomUUID();
  }

  String key() {
    return key;
  }

  /** What every card of this chaos run starts with. */
  String prefix() {
    return prefix;
  }

  /** The worker JVM flag that hands the card prefix to the bodies. */
  String workerFlag() {
    return "-D" + PREFIX_PROPERTY + "=" + prefix;
  }

  /** Names the key variable in the flows.json of {@code dir} (top level {@code secrets}). */
  static void declareKey(Path dir) throws IOException {
    Path file = dir.resolve("flows.json");
    ObjectNode config = (ObjectNode) JSON.readTree(file.toFile());
    config.putObject("secrets").put("keyEnv", KEY_VAR);
    Files.writeString(file, config.toString());
  }

  /**
   * A violation for each succeeded run of the mix whose server did not echo its card, and for any
   * place the card prefix shows in clear: a table's rows, a function's source, a worker's log.
   */
  void check(Connection c, ChaosChecks checks, Collection<Path> workerLogs)
      throws SQLException, IOException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT r.run_id, s.output->>'card' FROM flows.runs r"
                    + " JOIN flows.steps s ON s.run_id = r.run_id"
                    + " WHERE r.parent_run_id IS NULL AND r.status = 'succeeded'"
                    + " AND r.spec->'steps'->0->'input' ? 'n'")) {
      long echoed = 0;
      while (rs.next()) {
        if ("true".equals(rs.getString(2))) {
          echoed++;
        } else {
          checks.violations.add(
              "run "
                  + rs.getString(1)
                  + ": the server did not echo its secret card ("
                  + rs.getString(2)
                  + ")");
        }
      }
      checks.facts.put("secret cards sent and echoed", echoed);
    }
    List<String> tables = tables(c);
    for (String t : tables) {
      ByteArrayOutputStream rows = new ByteArrayOutputStream();
      c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY " + t + " TO STDOUT", rows);
      if (rows.toString(StandardCharsets.UTF_8).contains(prefix)) {
        checks.violations.add("a secret card is in clear in table " + t);
      }
    }
    checks.facts.put("tables scanned for a secret in clear", (long) tables.size());
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT p.proname, p.prosrc FROM pg_proc p"
                    + " JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')")) {
      while (rs.next()) {
        if (rs.getString(2).contains(prefix)) {
          checks.violations.add("a secret card is in clear in function " + rs.getString(1));
        }
      }
    }
    for (Path log : workerLogs) {
      if (Files.exists(log)
          && new String(Files.readAllBytes(log), StandardCharsets.UTF_8).contains(prefix)) {
        checks.violations.add("a secret card is in clear in worker log " + log);
      }
    }
  }

  private static List<String> tables(Connection c) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT format('%I.%I', schemaname, tablename) FROM pg_tables"
                    + " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
