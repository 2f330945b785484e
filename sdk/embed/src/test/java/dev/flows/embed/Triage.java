package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;

/** The README's flow: one memo and one call of the {@code tickets} server's {@code echo} tool. */
public final class Triage implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("triage").version("1").mcp("tickets").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String text = f.step("normalize", () -> input.path("text").asText().trim()).asText();
    String echoed = f.mcp("tickets").tool("echo").call(Map.of("text", text)).text();
    return JsonNodeFactory.instance.objectNode().put("category", echoed);
  }
}
