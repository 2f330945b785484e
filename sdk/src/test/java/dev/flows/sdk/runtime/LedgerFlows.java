package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.testkit.Jvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Single-file flows beside a flows.json naming one stdio test server whose {@code ledger} tool
 * writes to {@code ledger}: what the crash matrix and the chaos suite run.
 */
public final class LedgerFlows {
  private LedgerFlows() {}

  /** Writes {@code dir/fileName} and {@code dir/flows.json}, and loads the flow. */
  public static LoadedFlow write(
      Path dir, String fileName, String source, String server, boolean idempotent, Path ledger)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(fileName), source);
    JsonNode s =
        McpServerConfigJson.write(
            Jvm.stdioServer(server, List.of(), Map.of("FLOWS_TEST_LEDGER", ledger.toString())));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\""
            + server
            + "\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + ", \"setEnv\": "
            + s.path("env")
            + ", \"idempotencyKeys\": "
            + idempotent
            + "}}}");
    return LoadedFlow.load(dir.resolve(fileName).toString(), dir);
  }
}
