package dev.flows.examples.servers;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** bin/tickets-server and bin/payments-server, started as an operator or flows.json would. */
class LaunchersTest {
  /** Surefire runs in the module's directory. */
  static final Path BIN = Path.of("bin").toAbsolutePath();

  private static final Pattern LISTENING =
      Pattern.compile("listening on (http://127\\.0\\.0\\.1:(\\d+)/mcp)");

  @Test
  void theTicketsLauncherServesMcpOnStdioWithAMinimalEnvironment() {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", System.getProperty("user.home"));
    McpSyncClient c = Clients.stdio(BIN.resolve("tickets-server").toString(), List.of(), env);
    try {
      assertThat(c.listTools().tools())
          .extracting(McpSchema.Tool::name)
          .contains("classify", "create_ticket", "get_ticket");
    } finally {
      c.closeGracefully();
    }
  }

  @Test
  void thePaymentsLauncherPrintsItsAddressAndServesThere() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(BIN.resolve("payments-server").toString(), "0")
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put(PaymentsServer.TOKEN_ENV, "launcher-token");
    Process p = pb.start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertThat(line).isNotNull();
      Matcher m = LISTENING.matcher(line);
      assertThat(m.matches()).as(line).isTrue();
      McpSyncClient c = Clients.http(URI.create(m.group(1)), "launcher-token");
      try {
        assertThat(c.listTools().tools()).extracting(McpSchema.Tool::name).contains("charge");
      } finally {
        c.closeGracefully();
      }
    } finally {
      p.destroy();
      assertThat(p.waitFor(Clients.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void thePaymentsLauncherRefusesToStartWithoutAToken() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(BIN.resolve("payments-server").toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().remove(PaymentsServer.TOKEN_ENV);
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(Clients.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(PaymentsServer.EXIT_CANNOT_START);
    assertThat(err).contains(PaymentsServer.TOKEN_ENV);
  }
}
