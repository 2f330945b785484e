package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.FlowsError;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code Flows.start} against a server whose every connection slot is taken, on a cluster of its
 * own (a low {@code max_connections} would starve other tests): refused {@code
 * database_unavailable} with the fix, nothing admitted, and the same instance (its worker too)
 * starts and runs flows once a slot frees.
 */
class DatabaseSlotsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aStartWhileEveryConnectionSlotIsTakenIsRefusedWithTheFixAndTheWorkerGoesOnAfter()
      throws Exception {
    try (EmbeddedPostgres server =
        EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("max_connections", "10")
            .setServerConfig("superuser_reserved_connections", "0")
            .start()) {
      String url = server.getJdbcUrl("postgres", "postgres");
      // Not pooled: every call opens a connection, so a taken slot is met by the next call.
      PGSimpleDataSource unpooled = new PGSimpleDataSource();
      unpooled.setURL(url);
      try (Flows flows =
          Flows.builder()
              .dataSource(unpooled)
              .migrate(true)
              .register(new TestFlows.Shout())
              .worker(w -> w.capacity(2))
              .build()) {
        assertThat(shout(flows, "warm-up")).isEqualTo("WARM-UP");
        // Takes every slot, and each one the engine's own short-lived connections free.
        Hog hog = new Hog(url);
        hog.start();
        try {
          hog.awaitSettled();
          assertThatThrownBy(
                  () -> flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", "no"))))
              .isInstanceOfSatisfying(
                  FlowsError.class,
                  e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE.wire());
                    assertThat(e.retryable()).isTrue();
                    assertThat(e.getMessage()).contains("too many clients");
                    assertThat(e.fix())
                        .hasValueSatisfying(f -> assertThat(f).contains("max_connections"));
                  });
        } finally {
          hog.release();
        }
        assertThat(runs(url)).as("the refused start admitted nothing").isEqualTo(1);
        assertThat(shout(flows, "again")).isEqualTo("AGAIN");
      }
    }
  }

  private static String shout(Flows flows, String text) throws Exception {
    RunHandle<JsonNode> h =
        flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", text)));
    return h.result(WAIT).path("text").asText();
  }

  private static long runs(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        var rs = st.executeQuery("SELECT count(*) FROM flows.runs")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Holds every connection slot the server lets it open, grabbing each one that frees. */
  private static final class Hog extends Thread {
    private final String url;
    private final List<Connection> held = new ArrayList<>();
    private volatile boolean releasing;
    private volatile int gained;
    private volatile long lastGain = System.nanoTime();

    Hog(String url) {
      this.url = url;
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!releasing) {
        try {
          held.add(DriverManager.getConnection(url));
          gained++;
          lastGain = System.nanoTime();
        } catch (SQLException full) {
          try {
            Thread.sleep(5);
          } catch (InterruptedException stop) {
            return;
          }
        }
      }
    }

    /** Until no slot was gained for a second: the engine holds only what it keeps open. */
    void awaitSettled() throws InterruptedException {
      while (gained == 0 || System.nanoTime() - lastGain < Duration.ofSeconds(1).toNanos()) {
        Thread.sleep(50);
      }
    }

    void release() throws Exception {
      releasing = true;
      join();
      for (Connection c : held) {
        c.close();
      }
    }
  }
}
