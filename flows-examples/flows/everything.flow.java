import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Calls the MCP reference server @modelcontextprotocol/server-everything (started with npx, so it
 * needs Node.js): its echo and get-sum tools.
 *
 * <p>Input: {"message": "...", "a": 2, "b": 3} (all optional).
 */
public class Everything implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("everything").version("1").mcp("everything").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String message = input.path("message").asText("hello from flows");
    long a = input.path("a").asLong(2);
    long b = input.path("b").asLong(3);

    String echoed = f.mcp("everything").tool("echo").call(Map.of("message", message)).text();
    String sum = f.mcp("everything").tool("get-sum").call(Map.of("a", a, "b", b)).text();

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("echo", echoed);
    out.put("sum", sum);
    return f.step("result", () -> out);
  }
}
