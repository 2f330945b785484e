package dev.flows.ops.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the journal says of the short runs' times, read once after a load. */
final class JournalTimes {
  private JournalTimes() {}

  /**
   * Per run id, the journal's times as epoch nanoseconds: admitted (the run row's creation), the
   * body's first attempt started (its claim), the last memo or tool call confirmed (its children's
   * too), the run ended.
   */
  static Map<String, long[]> of(String url, List<String> ids) throws Exception {
    Map<String, long[]> out = new HashMap<>();
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps = c.prepareStatement(JOURNAL_TIMES)) {
      Array array = c.createArrayOf("text", ids.toArray());
      ps.setArray(1, array);
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          long[] t = new long[4];
          boolean complete = true;
          for (int i = 0; i < 4; i++) {
            t[i] = r.getLong(i + 2) * 1000;
            complete &= !r.wasNull();
          }
          if (complete) {
            out.put(r.getString(1), t);
          }
        }
      }
    }
    return out;
  }

  private static final String JOURNAL_TIMES =
      """
      SELECT r.run_id,
             (extract(epoch FROM r.created_at) * 1e6)::bigint,
             (SELECT (extract(epoch FROM min(e.at)) * 1e6)::bigint FROM flows.journal_entries e
               WHERE e.run_id = r.run_id AND e.entry_type = 'step.attempt.started'),
             (SELECT (extract(epoch FROM max(e.at)) * 1e6)::bigint FROM flows.journal_entries e
               JOIN flows.runs k ON k.run_id = e.run_id
               WHERE (k.run_id = r.run_id OR k.parent_run_id = r.run_id)
                 AND e.entry_type = 'effect.confirmed'),
             (extract(epoch FROM r.completed_at) * 1e6)::bigint
        FROM flows.runs r
       WHERE r.run_id = ANY (?)
      """;
}
