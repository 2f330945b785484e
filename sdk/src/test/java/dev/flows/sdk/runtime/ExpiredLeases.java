package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunRef;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Puts the leases a dead worker held past their deadline by the database clock, so the next {@code
 * expireLeases} journals them {@code lease_expired} at once. A test that kills a worker forces the
 * take-over this way instead of waiting for a short lease to run out: the leases its live workers
 * hold can then be long enough for an attempt at any machine load.
 */
final class ExpiredLeases {
  private ExpiredLeases() {}

  /** Every running attempt (call it when no live worker holds a lease); answers how many. */
  static int all(String jdbcUrl) {
    return update(jdbcUrl, "");
  }

  /** The running attempts of {@code run}'s steps; answers how many. */
  static int of(String jdbcUrl, RunRef run) {
    return update(jdbcUrl, " AND run_id = ?", run.value());
  }

  private static int update(String jdbcUrl, String where, Object... args) {
    String sql =
        "UPDATE flows.steps SET lease_deadline = clock_timestamp() - interval '1 millisecond'"
            + " WHERE status = 'running'"
            + where;
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        PreparedStatement st = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        st.setObject(i + 1, args[i]);
      }
      return st.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }
}
