package dev.flows.journalstore;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * One connection made before a pool is opened, so that a login the server refuses is told at once
 * ({@code database_auth_failed}): a pool that cannot connect only says so after its connection
 * timeout, as a timeout, whatever the reason. A server that is not reachable yet is left to the
 * pool, which waits for it.
 */
public final class LoginCheck {
  private LoginCheck() {}

  /**
   * Refuses {@code database_auth_failed} at {@code place} when the server refuses {@code config}'s
   * login; any other failure to connect is not this check's to report.
   */
  public static void refuseWrongLogin(JournalStoreConfig config, String place) {
    Properties p = new Properties();
    config.user().ifPresent(u -> p.setProperty("user", u));
    config.password().ifPresent(pw -> p.setProperty("password", pw));
    p.setProperty(
        "connectTimeout", String.valueOf(Math.max(1, config.connectionTimeout().toSeconds())));
    try (Connection c = DriverManager.getConnection(config.jdbcUrl(), p)) {
      // The login works; the pool makes its own connections.
    } catch (SQLException e) {
      if (SqlErrors.authFailure(e)) {
        throw SqlErrors.authFailed(e, place);
      }
    }
  }
}
