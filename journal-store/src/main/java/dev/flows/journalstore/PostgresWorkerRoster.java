package dev.flows.journalstore;

import dev.flows.kernel.journal.FlowVersionState;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.journal.WorkerPresence;
import dev.flows.kernel.journal.WorkerRoster;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The {@link WorkerRoster} in {@code flows.workers}, and the read of {@code flows.versions}. Each
 * announcement also deletes the rows of workers gone for longer than {@link #FORGET_AFTER}, so a
 * killed worker's row does not stay forever.
 */
public final class PostgresWorkerRoster implements WorkerRoster {
  /** A worker row not refreshed for this long is deleted by the next announcement of any worker. */
  public static final Duration FORGET_AFTER = Duration.ofDays(1);

  private final DataSource db;

  public PostgresWorkerRoster(DataSource db) {
    this.db = db;
  }

  @Override
  public void announce(WorkerPresence p) {
    try (Connection c = db.getConnection();
        PreparedStatement st = c.prepareStatement(Sql.text("worker_announce"));
        PreparedStatement forget = c.prepareStatement(Sql.text("workers_forget_gone"))) {
      st.setString(1, p.worker().value());
      st.setString(2, p.host());
      st.setLong(3, p.pid());
      st.setLong(4, p.refreshEvery().toMillis());
      st.setArray(5, texts(c, p.queues()));
      st.setArray(6, texts(c, p.routes()));
      st.setArray(7, texts(c, p.routePrefixes()));
      st.executeUpdate();
      forget.setLong(1, FORGET_AFTER.toMillis());
      forget.executeUpdate();
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }

  @Override
  public void withdraw(WorkerId worker) {
    try (Connection c = db.getConnection();
        PreparedStatement st = c.prepareStatement(Sql.text("worker_withdraw"))) {
      st.setString(1, worker.value());
      st.executeUpdate();
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }

  /**
   * The versions of flow {@code flow} that have runs not ended or a live worker ({@code
   * flows.versions}), the oldest runs first, then the versions without a run.
   */
  public static List<FlowVersionState> versions(Connection c, String flow) throws SQLException {
    List<FlowVersionState> out = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement(Sql.text("flow_versions"))) {
      st.setString(1, flow);
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          Timestamp oldest = r.getTimestamp(5);
          Array workers = r.getArray(6);
          out.add(
              new FlowVersionState(
                  r.getString(1),
                  Optional.ofNullable(r.getString(2)).orElse(""),
                  r.getString(3),
                  r.getLong(4),
                  Optional.ofNullable(oldest).map(Timestamp::toInstant),
                  List.of((String[]) workers.getArray())));
        }
      }
    }
    return out;
  }

  private static Array texts(Connection c, Set<String> values) throws SQLException {
    return c.createArrayOf("text", values.stream().sorted().toArray());
  }
}
