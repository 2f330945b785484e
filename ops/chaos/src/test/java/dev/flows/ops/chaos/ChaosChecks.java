package dev.flows.ops.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The invariants checked after a chaos run, over the journal, the chaos instrumentation and the
 * test servers' ledger files. Each problem found is one violation; {@link #facts} holds the numbers
 * worth printing besides.
 */
final class ChaosChecks {
  /**
   * Where the idempotency-aware and the plain server write what they did, and the task server's
   * events log (one JSON line per call and task operation).
   */
  record Ledgers(
      Path idempotent, Path plain, String idempotentPath, String plainPath, Path taskEvents) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  final List<String> violations = new ArrayList<>();
  final Map<String, Long> facts = new LinkedHashMap<>();

  private final Connection c;

  ChaosChecks(Connection c) {
    this.c = c;
  }

  ChaosChecks runAll(Ledgers ledgers, List<JournalSnapshot> snapshots)
      throws SQLException, IOException {
    everyRunTerminalOrResumable();
    everySignalDeliveredOnce();
    noEffectConfirmedTwice();
    serversPerformedEachKeyOnce(ledgers);
    noFailedCallWasPerformed(ledgers);
    tasksCalledOnce(ledgers.taskEvents());
    noCompletionAfterItsLease();
    journalNeverChanged(snapshots);
    journalRefusesChange();
    return this;
  }

  /**
   * Each chaos run was sent one signal (keyed, so a resend is absorbed); a succeeded body answers
   * the payload it took, so a lost signal (a timeout: -1) or another run's shows in its output.
   */
  void everySignalDeliveredOnce() throws SQLException {
    for (List<String> r :
        rows(
            "SELECT r.run_id, coalesce(s.output->>'go', 'none'),"
                + " r.spec->'steps'->0->'input'->>'n' FROM flows.runs r"
                + " JOIN flows.steps s ON s.run_id = r.run_id"
                + " WHERE r.parent_run_id IS NULL AND r.status = 'succeeded'"
                + " AND r.spec->'steps'->0->'input' ? 'n'")) {
      if (!r.get(1).equals(r.get(2))) {
        violation("run " + r.get(0) + " took signal " + r.get(1) + ", was sent " + r.get(2));
      }
    }
    for (List<String> r :
        rows(
            "SELECT count(*)::text, count(*) FILTER (WHERE delivered_at IS NOT NULL)::text"
                + " FROM flows.signals")) {
      facts.put("signals sent", Long.parseLong(r.get(0)));
      facts.put("signals delivered", Long.parseLong(r.get(1)));
    }
    for (List<String> r :
        rows(
            "SELECT run_id, count(*)::text FROM flows.signal_mailbox GROUP BY run_id"
                + " HAVING count(*) > 1")) {
      violation("run " + r.get(0) + " holds " + r.get(1) + " signals: a keyed send went twice");
    }
  }

  private void violation(String what) {
    violations.add(what);
  }

  void everyRunTerminalOrResumable() throws SQLException {
    for (List<String> r :
        rows(
            "SELECT (parent_run_id IS NULL)::text, status::text, count(*)::text FROM flows.runs"
                + " GROUP BY 1, 2 ORDER BY 1, 2")) {
      facts.put(
          ("true".equals(r.get(0)) ? "runs." : "child runs.") + r.get(1), Long.parseLong(r.get(2)));
    }
    // How often bodies gave their attempt back and were replayed: suspension under faults is part
    // of what the run exercised.
    facts.put(
        "body attempts suspended",
        single(
            "SELECT count(*) FROM flows.journal_entries WHERE entry_type = 'step.completed'"
                + " AND payload->>'reason' = 'suspended'"));
    // Parked waits for an operator and failed can be resumed: both are at rest. Running after the
    // drain means a run that no healthy worker moves on.
    for (List<String> r :
        rows(
            "SELECT r.run_id, string_agg(s.step_id || '=' || s.status, ',' ORDER BY s.position)"
                + " FROM flows.runs r LEFT JOIN flows.steps s ON s.run_id = r.run_id"
                + " WHERE r.status = 'running' GROUP BY r.run_id ORDER BY r.run_id")) {
      violation("run " + r.get(0) + " neither terminal nor resumable (steps " + r.get(1) + ")");
    }
  }

  void noEffectConfirmedTwice() throws SQLException {
    for (List<String> r :
        rows(
            "SELECT run_id, step_id, payload->>'surfacePath', count(*)::text"
                + " FROM flows.journal_entries WHERE entry_type = 'effect.confirmed'"
                + " GROUP BY 1, 2, 3 HAVING count(*) > 1")) {
      violation(
          "effect "
              + r.get(0)
              + "/"
              + r.get(1)
              + " "
              + r.get(2)
              + " confirmed "
              + r.get(3)
              + " times");
    }
    for (List<String> r :
        rows(
            // The effects of one flow body share its step's key; a key sent to a server names
            // one call only.
            "SELECT payload->>'idempotencyKey', count(*)::text FROM flows.journal_entries"
                + " WHERE entry_type = 'effect.confirmed' AND payload->>'surfacePath' LIKE '/mcp/%'"
                + " GROUP BY 1 HAVING count(*) > 1")) {
      violation("idempotency key " + r.get(0) + " confirmed " + r.get(1) + " times");
    }
    long entries =
        single("SELECT count(*) FROM flows.journal_entries WHERE entry_type = 'effect.confirmed'");
    long elections = single("SELECT count(*) FROM flows.effect_elections WHERE confirmed");
    facts.put("effects confirmed", entries);
    if (entries != elections) {
      violation(entries + " effect.confirmed entries but " + elections + " confirmed elections");
    }
  }

  void serversPerformedEachKeyOnce(Ledgers l) throws SQLException, IOException {
    List<String> performed = lines(l.idempotent());
    List<String> sent = lines(Path.of(l.idempotent() + ".calls"));
    Set<String> once = new HashSet<>();
    for (String k : performed) {
      if (!once.add(k)) {
        violation("the idempotency-aware server performed key " + k + " twice");
      }
    }
    facts.put("idempotent server: calls received", (long) sent.size());
    facts.put("idempotent server: keys performed", (long) performed.size());
    facts.put(
        "idempotent server: resends absorbed by key", (long) (sent.size() - performed.size()));
    for (List<String> r : confirmedKeys(l.idempotentPath())) {
      if (!once.contains(r.get(0))) {
        violation(
            "key " + r.get(0) + " confirmed in the journal but never performed by the server");
      }
    }
    // A server without idempotency keys must never see a key twice: flows parks instead.
    List<String> plainSent = lines(Path.of(l.plain() + ".calls"));
    Map<String, Integer> seen = new HashMap<>();
    for (String k : plainSent) {
      if (seen.merge(k, 1, Integer::sum) == 2) {
        violation("the server without idempotency keys received key " + k + " more than once");
      }
    }
    facts.put("plain server: calls received", (long) plainSent.size());
    Set<String> plainSet = new HashSet<>(plainSent);
    for (List<String> r : confirmedKeys(l.plainPath())) {
      if (!plainSet.contains(r.get(0))) {
        violation("key " + r.get(0) + " confirmed in the journal but never received by the server");
      }
    }
  }

  /**
   * A run that failed holding a call to the idempotency-aware server whose key it recorded and
   * never confirmed must not have that key in the server's ledger: a call the server performed
   * whose outcome the engine did not know must park (effect_outcome_unknown), never be reported
   * failed. Every call of that server counts (the mix's and the agents' tool calls).
   */
  void noFailedCallWasPerformed(Ledgers l) throws SQLException, IOException {
    Set<String> performed = new HashSet<>(lines(l.idempotent()));
    String path = l.idempotentPath();
    String server = path.substring(0, path.lastIndexOf('/') + 1).replace("'", "''");
    List<List<String>> unconfirmed =
        rows(
            "SELECT DISTINCT e.run_id, e.payload->>'idempotencyKey' FROM flows.journal_entries e"
                + " JOIN flows.runs r ON r.run_id = e.run_id"
                + " WHERE r.status = 'failed' AND e.entry_type = 'effect.recorded'"
                + " AND starts_with(e.payload->>'surfacePath', '"
                + server
                + "') AND NOT EXISTS (SELECT 1 FROM flows.journal_entries x"
                + " WHERE x.run_id = e.run_id AND x.entry_type = 'effect.confirmed'"
                + " AND x.payload->>'idempotencyKey' = e.payload->>'idempotencyKey')"
                + " ORDER BY 1, 2");
    facts.put("failed runs' calls never confirmed (idempotent server)", (long) unconfirmed.size());
    for (List<String> r : unconfirmed) {
      if (performed.contains(r.get(1))) {
        violation(
            "run "
                + r.get(0)
                + " failed although the idempotency-aware server performed its call's key "
                + r.get(1));
      }
    }
  }

  /**
   * Task-backed calls, from the task server's own events log: each idempotency key came in at most
   * one {@code tools/call} and got at most one task (a call is never sent twice: a worker that dies
   * during a task leaves the next attempt to poll it); each task the journal holds is the one the
   * server created for that call's key; each task run that succeeded answers its own task's result
   * and had its task journaled. Task runs that did not succeed are counted by status and by the
   * reasons their call's attempts last ended with.
   */
  void tasksCalledOnce(Path events) throws SQLException, IOException {
    Map<String, Integer> calls = new HashMap<>();
    Map<String, Integer> created = new HashMap<>();
    Map<String, String> taskOfKey = new HashMap<>();
    long polls = 0;
    for (String line : lines(events)) {
      JsonNode e = JSON.readTree(line);
      String key = e.path("key").asText();
      switch (e.path("event").asText()) {
        case "tools/call" -> {
          if (calls.merge(key, 1, Integer::sum) == 2) {
            violation("the task server received key " + key + " in more than one tools/call");
          }
        }
        case "task.created" -> {
          if (created.merge(key, 1, Integer::sum) == 2) {
            violation("the task server created more than one task for key " + key);
          }
          taskOfKey.putIfAbsent(key, e.path("taskId").asText());
        }
        case "tasks/get" -> polls++;
        default -> {}
      }
    }
    facts.put(
        "task server: tools/call received",
        calls.values().stream().mapToLong(Integer::longValue).sum());
    facts.put("task server: keys called", (long) calls.size());
    facts.put("task server: tasks created", (long) taskOfKey.size());
    facts.put("task server: tasks/get polls", polls);
    List<List<String>> journaled =
        rows("SELECT run_id, idempotency_key, task_id FROM flows.mcp_tasks ORDER BY run_id");
    facts.put("tasks journaled", (long) journaled.size());
    for (List<String> r : journaled) {
      String theirs = taskOfKey.getOrDefault(r.get(1), "none");
      if (!theirs.equals(r.get(2))) {
        violation(
            "run "
                + r.get(0)
                + " journaled task "
                + r.get(2)
                + " for key "
                + r.get(1)
                + "; the task server created "
                + theirs);
      }
    }
    for (List<String> r :
        rows(
            "SELECT r.run_id, r.status::text, r.spec->'steps'->0->'input'->>'ms',"
                + " coalesce(s.output->>'said', ''),"
                + " (SELECT count(*) FROM flows.mcp_tasks t JOIN flows.runs c"
                + " ON c.run_id = t.run_id WHERE c.parent_run_id = r.run_id)::text,"
                + " coalesce((SELECT string_agg(DISTINCT cs.last_reason::text, ',')"
                + " FROM flows.runs c JOIN flows.steps cs ON cs.run_id = c.run_id"
                + " WHERE c.parent_run_id = r.run_id), 'none')"
                + " FROM flows.runs r JOIN flows.steps s ON s.run_id = r.run_id"
                + " WHERE r.parent_run_id IS NULL AND r.spec->'steps'->0->'input' ? 'task'")) {
      facts.merge("task runs." + r.get(1), 1L, Long::sum);
      if (!r.get(1).equals("succeeded")) {
        facts.merge("task runs." + r.get(1) + " (call ended " + r.get(5) + ")", 1L, Long::sum);
        continue;
      }
      String expected = "slow done after " + r.get(2) + " ms";
      if (!expected.equals(r.get(3))) {
        violation("task run " + r.get(0) + " answered '" + r.get(3) + "', not '" + expected + "'");
      }
      if (r.get(4).equals("0")) {
        violation("task run " + r.get(0) + " succeeded with no task journaled for its call");
      }
    }
  }

  /**
   * How the tasks a fault hit (their owner killed while they worked) ended, by the task's last
   * journaled status and its call's run status.
   */
  void tasksHit(Set<String> taskIds) throws SQLException {
    facts.put("tasks hit by a kill", (long) taskIds.size());
    for (List<String> r :
        rows("SELECT status, run_status::text, task_id FROM flows.mcp_tasks ORDER BY task_id")) {
      if (taskIds.contains(r.get(2))) {
        facts.merge(
            "tasks hit by a kill, then task " + r.get(0) + ", call run " + r.get(1), 1L, Long::sum);
      }
    }
  }

  private List<List<String>> confirmedKeys(String surfacePath) throws SQLException {
    return rows(
        "SELECT DISTINCT payload->>'idempotencyKey' FROM flows.journal_entries"
            + " WHERE entry_type = 'effect.confirmed' AND payload->>'surfacePath' = '"
            + surfacePath.replace("'", "''")
            + "'");
  }

  // A worker's completion reports something (an output, or outputOf naming the election that
  // keeps it, or a trajectory tail) or is a body's suspension; the journal's own expiry of a dead
  // attempt reports nothing, since that attempt never did, but for the tail of an effect whose
  // outcome it left unknown (reason lease_expired, which no worker reports). Each is judged against
  // the deadline the
  // step row held when the attempt ended.
  private static final String REPORTED =
      "(c.payload ? 'output' OR c.payload ? 'outputOf'"
          + " OR (c.payload ? 'trajectoryTail' AND c.payload->>'reason' <> 'lease_expired')"
          + " OR c.payload->>'reason' = 'suspended')";
  private static final String WORKER = REPORTED + " AND c.payload->>'reason' <> 'canceled'";
  private static final String JOINED =
      " FROM flows.journal_entries c JOIN chaos.attempt_ends e"
          + " ON e.run_id = c.run_id AND e.step_id = c.step_id AND e.attempt = c.attempt"
          + " WHERE c.entry_type = 'step.completed' AND ";

  void noCompletionAfterItsLease() throws SQLException {
    String reported = REPORTED;
    String worker = WORKER;
    String expiry = "NOT " + reported;
    String joined = JOINED;
    long judged = single("SELECT count(*)" + joined + worker);
    long all =
        single(
            "SELECT count(*) FROM flows.journal_entries c WHERE c.entry_type = 'step.completed'"
                + " AND "
                + worker);
    facts.put("worker completions judged against their lease", judged);
    if (judged != all) {
      violation((all - judged) + " worker completions have no recorded lease to judge them by");
    }
    String place =
        "SELECT c.run_id, c.step_id, c.attempt::text, c.at::text, e.lease_deadline::text";
    for (List<String> r : rows(place + joined + worker + " AND c.at >= e.lease_deadline")) {
      violation(
          "completion of "
              + r.get(0)
              + "/"
              + r.get(1)
              + " attempt "
              + r.get(2)
              + " accepted at "
              + r.get(3)
              + ", its lease ended "
              + r.get(4));
    }
    for (List<String> r : rows(place + joined + expiry + " AND c.at < e.lease_deadline")) {
      violation(
          "attempt "
              + r.get(2)
              + " of "
              + r.get(0)
              + "/"
              + r.get(1)
              + " expired at "
              + r.get(3)
              + " while its lease ran to "
              + r.get(4));
    }
    for (List<String> r :
        rows(
            "SELECT c.run_id, c.step_id, c.attempt::text, c.payload->>'reason'"
                + " FROM flows.journal_entries c WHERE c.entry_type = 'step.completed' AND "
                + expiry
                + " AND c.payload->>'reason' NOT IN ('lease_expired', 'retries_exhausted')")) {
      violation(
          "completion of "
              + r.get(0)
              + "/"
              + r.get(1)
              + " attempt "
              + r.get(2)
              + " reports nothing but is no expiry ("
              + r.get(3)
              + ")");
    }
    facts.put(
        "lease expiries",
        single(
            "SELECT count(*) FROM flows.journal_entries c WHERE c.entry_type = 'step.completed'"
                + " AND "
                + expiry));
    // Not a violation (decided in time, the row lock held until commit), but worth seeing.
    facts.put(
        "completions decided in time but written after the deadline",
        single(
            "SELECT count(*)"
                + joined
                + worker
                + " AND c.at < e.lease_deadline AND e.written_at >= e.lease_deadline"));
  }

  /**
   * A failover must not extend a lease: each worker completion of an attempt that was granted
   * before a failover and ended after it was accepted before the deadline its step row held, as
   * judged by the clock of the primary in charge when it ended.
   */
  void leasesAcrossFailovers(List<java.time.Instant> failovers) throws SQLException {
    long across = 0;
    for (java.time.Instant t : failovers) {
      String at = "'" + t + "'::timestamptz";
      String spanning =
          JOINED
              + WORKER
              + " AND c.at >= "
              + at
              + " AND EXISTS (SELECT 1 FROM flows.journal_entries s"
              + " WHERE s.run_id = c.run_id AND s.step_id = c.step_id AND s.attempt = c.attempt"
              + " AND s.entry_type = 'step.attempt.started' AND s.at < "
              + at
              + ")";
      across += single("SELECT count(*)" + spanning);
      for (List<String> r :
          rows(
              "SELECT c.run_id, c.step_id, c.attempt::text, c.at::text, e.lease_deadline::text"
                  + spanning
                  + " AND c.at >= e.lease_deadline")) {
        violation(
            "completion of "
                + r.get(0)
                + "/"
                + r.get(1)
                + " attempt "
                + r.get(2)
                + ", leased before the failover at "
                + t
                + ", accepted at "
                + r.get(3)
                + " after its lease ended "
                + r.get(4));
      }
    }
    facts.put("completions of leases granted before a failover, accepted after it", across);
  }

  void journalNeverChanged(List<JournalSnapshot> snapshots) throws SQLException {
    long committedLater = 0;
    for (JournalSnapshot s : snapshots) {
      JournalSnapshot.Difference d = s.against(JournalSnapshot.upTo(c, s.maxSeq()));
      if (d.changed() > 0 || d.gone() > 0) {
        violation(
            "journal entries up to seq "
                + s.maxSeq()
                + " changed: "
                + d.changed()
                + " changed, "
                + d.gone()
                + " gone since "
                + s);
      }
      committedLater += d.committedLater();
    }
    facts.put("journal snapshots compared", (long) snapshots.size());
    facts.put("journal entries committed after a snapshot with a lower seq", committedLater);
    facts.put("journal entries", single("SELECT count(*) FROM flows.journal_entries"));
  }

  void journalRefusesChange() throws SQLException {
    for (String sql :
        List.of(
            "UPDATE flows.journal_entries SET payload = '{}'"
                + " WHERE seq = (SELECT min(seq) FROM flows.journal_entries)",
            "DELETE FROM flows.journal_entries"
                + " WHERE seq = (SELECT min(seq) FROM flows.journal_entries)",
            "TRUNCATE flows.journal_entries CASCADE")) {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute(sql);
        violation("the journal accepted: " + sql);
      } catch (SQLException e) {
        if (!"23001".equals(e.getSQLState())) {
          violation("the journal refused `" + sql + "` for another reason: " + e.getMessage());
        }
      } finally {
        c.rollback();
        c.setAutoCommit(auto);
      }
    }
  }

  private static List<String> lines(Path p) throws IOException {
    return Files.exists(p)
        ? Files.readAllLines(p).stream().filter(s -> !s.isBlank()).toList()
        : List.of();
  }

  private long single(String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private List<List<String>> rows(String sql) throws SQLException {
    List<List<String>> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
    }
    return out;
  }
}
