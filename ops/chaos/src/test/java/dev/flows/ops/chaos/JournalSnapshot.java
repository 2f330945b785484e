package dev.flows.ops.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The journal's entries up to {@code maxSeq}, summed up as a count and a hash of every column:
 * taken during the run and taken again at the end, any update or delete of an entry in between
 * shows as a difference. (Sequence gaps are normal: aborted transactions and crash recovery skip
 * identity values, so contiguity alone proves nothing.)
 */
record JournalSnapshot(long maxSeq, long count, String hash) {
  private static final String SQL =
      """
      SELECT count(*) AS n,
             coalesce(md5(string_agg(
               seq || '|' || at || '|' || run_id || '|' || entry_type || '|'
                 || coalesce(step_id, '') || '|' || coalesce(attempt::text, '') || '|'
                 || payload::text, E'\\n' ORDER BY seq)), '') AS h
        FROM flows.journal_entries
       WHERE seq <= ?
      """;

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
    try (PreparedStatement ps = c.prepareStatement(SQL)) {
      ps.setLong(1, maxSeq);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new JournalSnapshot(maxSeq, rs.getLong("n"), rs.getString("h"));
      }
    }
  }
}
