package dev.flows.embed;

import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.journalstore.SqlErrors;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** {@link Flows#versions}: one read of {@code flows.versions}. */
final class VersionReads {
  private VersionReads() {}

  static List<VersionInfo> of(Optional<DataSource> db, String flow) {
    if (flow.isBlank()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a flow name is required",
          "Flows.versions",
          "pass the name in the flow's header");
    }
    DataSource ds =
        db.orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.CONFIG_INVALID,
                    "the in-memory journal has no versions view",
                    "Flows.versions",
                    "read versions on Postgres (FlowsTestEnvironment with Journal.POSTGRES)"));
    try (Connection c = ds.getConnection()) {
      return PostgresWorkerRoster.versions(c, flow).stream()
          .map(
              v ->
                  new VersionInfo(
                      v.flow(), v.version(), v.route(), v.runs(), v.oldestStartedAt(), v.workers()))
          .toList();
    } catch (SQLException e) {
      throw SqlErrors.translate(e);
    }
  }
}
