package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stdio MCP server ends when its client does: a worker killed mid-call closes the server's stdin,
 * and a server that outlived it would be left running for good.
 */
class StdioServerEofTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"modern", "tasks", "tasks-2025", "legacy"})
  void eachTestServerExitsWhenItsStdinCloses(String kind) throws Exception {
    McpServerConfig.Stdio s =
        switch (kind) {
          case "modern" -> Jvm.modernStdioServer("m");
          case "tasks" ->
              Jvm.taskStdioServer(
                  "t", "--state=" + dir.resolve("s.json"), "--events=" + dir.resolve("e.jsonl"));
          case "tasks-2025" ->
              Jvm.taskStdioServer(
                  "t",
                  "--protocol=2025-11-25",
                  "--state=" + dir.resolve("s.json"),
                  "--events=" + dir.resolve("e.jsonl"));
          default -> Jvm.stdioServer("l", List.of(), java.util.Map.of());
        };
    List<String> cmd = new ArrayList<>();
    cmd.add(s.command());
    cmd.addAll(s.args());
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(Files.createFile(dir.resolve("err.txt")).toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      // Let it start reading before its client goes away.
      Thread.sleep(1500);
      p.getOutputStream().close();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("%s exited at EOF", kind).isTrue();
    } finally {
      p.destroyForcibly();
    }
  }
}
