package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Library log lines of a command go to $FLOWS_HOME/flows.log, not to the terminal. */
class CliLogTest {
  @TempDir Path home;

  @Test
  void anMcpSdkWarningWithAStackTraceGoesToTheLogFileNotToTheTerminal() throws Exception {
    ByteArrayOutputStream terminal = new ByteArrayOutputStream();
    PrintStream before = System.err;
    System.setErr(new PrintStream(terminal, true, StandardCharsets.UTF_8));
    try {
      PrintStream forCommand =
          CliLog.install(
              new String[] {"--db", "worker", "check", "x.flow.java"},
              Map.of(Session.HOME_VARIABLE, home.toString()));
      LoggerFactory.getLogger("io.modelcontextprotocol.spec.McpClientSession")
          .warn("Client failed during connect", new IllegalStateException("cannot start"));
      LoggerFactory.getLogger("io.modelcontextprotocol.spec.McpClientSession")
          .warn("No handler registered for notification method: {}", "notifications/message");
      System.err.flush();
      forCommand.println("error mcp_unreachable: …");
    } finally {
      System.setErr(before);
    }

    String log = Files.readString(home.resolve(CliLog.FILE));
    assertThat(log)
        .contains("Client failed during connect")
        .contains("IllegalStateException: cannot start")
        .contains("No handler registered for notification method");
    assertThat(terminal.toString(StandardCharsets.UTF_8))
        .isEqualTo("error mcp_unreachable: …" + System.lineSeparator());
  }

  @Test
  void aWorkerAndADebugRunKeepTheirStderrAndNoLogFileIsCreatedForAQuietCommand() {
    assertThat(CliLog.keepsStderr(new String[] {"worker", "--capacity", "2"}, Map.of())).isTrue();
    assertThat(CliLog.keepsStderr(new String[] {"--db", "jdbc:x", "worker"}, Map.of())).isTrue();
    assertThat(CliLog.keepsStderr(new String[] {"run", "f.flow.java", "--debug"}, Map.of()))
        .isTrue();
    assertThat(
            CliLog.keepsStderr(
                new String[] {"run", "f.flow.java"}, Map.of(Session.DEBUG_VARIABLE, "1")))
        .isTrue();
    assertThat(CliLog.keepsStderr(new String[] {"--json", "run", "worker.flow.java"}, Map.of()))
        .isFalse();
    PrintStream before = System.err;
    try {
      CliLog.install(new String[] {"runs", "list"}, Map.of(Session.HOME_VARIABLE, home.toString()));
    } finally {
      System.setErr(before);
    }
    assertThat(home.resolve(CliLog.FILE)).doesNotExist();
  }
}
