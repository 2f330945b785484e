package dev.flows.ops.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The journal's entries up to {@code maxSeq}, each as a hash of every column: taken during the run
 * and read again at the end, any update or delete of an entry in between shows as an entry whose
 * hash differs or that is gone. Entries that appear later with a seq at or below {@code maxSeq} are
 * no change: a transaction takes its seq when it inserts and may commit after a snapshot that
 * already saw a higher one. (Sequence gaps are normal too: aborted transactions and crash recovery
 * skip identity values, so contiguity alone proves nothing.)
 */
record JournalSnapshot(long maxSeq, Map<Long, String> entries) {
  private static final String SQL =
      """
      SELECT seq,
             md5(seq || '|' || at || '|' || run_id || '|' || entry_type || '|'
                 || coalesce(step_id, '') || '|' || coalesce(attempt::text, '') || '|'
                 || payload::text) AS h
        FROM flows.journal_entries
       WHERE seq <= ?
      """;

  JournalSnapshot {
    entries = Map.copyOf(entries);
  }

  static JournalSnapshot take(Connection c) throws SQLException {
    long max;
    try (var st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT coalesce(max(seq), 0) FROM flows.journal_entries")) {
      rs.next();
      max = rs.getLong(1);
    }
    return upTo(c, max);
  }

  static JournalSnapshot upTo(Connection c, long maxSeq) throws SQLException {
    Map<Long, String> entries = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(SQL)) {
      ps.setLong(1, maxSeq);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.put(rs.getLong("seq"), rs.getString("h"));
        }
      }
    }
    return new JournalSnapshot(maxSeq, entries);
  }

  /** What happened since to the entries this snapshot saw, read from {@code now}. */
  record Difference(int changed, int gone, int committedLater) {}

  Difference against(JournalSnapshot now) {
    int changed = 0;
    int gone = 0;
    for (Map.Entry<Long, String> e : entries.entrySet()) {
      String later = now.entries.get(e.getKey());
      if (later == null) {
        gone++;
      } else if (!later.equals(e.getValue())) {
        changed++;
      }
    }
    return new Difference(changed, gone, now.entries.size() - (entries.size() - gone));
  }

  @Override
  public String toString() {
    return "JournalSnapshot[maxSeq=" + maxSeq + ", entries=" + entries.size() + "]";
  }
}
