package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flows demo} when the payments server's port is taken. */
class DemoPortTest {
  @TempDir Path home;

  private Cli cli() {
    Path checkout = Path.of("..").toAbsolutePath().normalize();
    return new Cli(
        Map.of("FLOWS_HOME", home.toString(), DemoCommand.ROOT_VARIABLE, checkout.toString()));
  }

  @Test
  void theDemoRunsOnAnotherPortWhenTheShippedOneIsTaken() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("demo_port");
    Cli.Result r;
    // Held here, or already held by something else: either way taken.
    try (ServerSocket held = FlowCommandsTest.bindIfFree(FlowCommandsTest.SHIPPED_PAYMENTS_PORT)) {
      r = cli().run("--db", db.jdbcUrl(), "--json", "demo");
    }
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.err())
        .contains("port " + FlowCommandsTest.SHIPPED_PAYMENTS_PORT + " is taken")
        .contains("--port");
    JsonNode end = r.jsonLines().getLast();
    assertThat(end.path("type").asText()).isEqualTo("demo.end");
    assertThat(end.path("receipts").findValuesAsText("tool")).contains("create_customer");
  }

  @Test
  void aPortAskedForThatIsTakenIsRefusedNamingTheOption() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("demo_port_taken");
    try (ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Cli.Result r =
          cli().run("--db", db.jdbcUrl(), "demo", "--port", Integer.toString(held.getLocalPort()));

      assertThat(r.exit()).isEqualTo(Exit.REFUSED);
      assertThat(r.errLines()).hasSize(1);
      assertThat(r.errLines().getFirst())
          .startsWith(
              "error mcp_unreachable: cannot start the example payments server on port "
                  + held.getLocalPort())
          .contains("fix: give another port with `flows demo --port PORT`");
    }
  }
}
