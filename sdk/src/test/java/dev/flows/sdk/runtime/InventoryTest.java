package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class InventoryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static ToolDescriptor tool(String name, String description, String schema) {
    return new ToolDescriptor(
        "payments",
        name,
        Optional.empty(),
        description.isEmpty() ? Optional.empty() : Optional.of(description),
        json(schema),
        Optional.empty(),
        ToolDescriptor.ToolHints.NONE);
  }

  private static Inventory inventory(ToolDescriptor... tools) {
    return Inventory.of(
        List.of(
            new Inventory.Server(
                new McpServerConfig.Stdio(
                    "payments", "x", List.of(), List.of(), Map.of(), Optional.empty()),
                false,
                List.of(tools))));
  }

  @Test
  void aToolsDescriptionAndInputSchemaAreFrozenForAModelToBeShown() {
    Inventory inv =
        inventory(
            tool(
                "refund",
                "Refund a charge",
                "{\"type\":\"object\",\"properties\":{\"charge\":{\"type\":\"string\"}},"
                    + "\"required\":[\"charge\"]}"));

    Inventory.Tool refund = inv.tool("payments", "refund").orElseThrow();

    assertThat(refund.description()).isEqualTo("Refund a charge");
    assertThat(refund.inputSchema().toString())
        .isEqualTo(
            "{\"type\":\"object\",\"properties\":{\"charge\":{\"type\":\"string\"}},"
                + "\"required\":[\"charge\"]}");
    assertThat(inv.tool("payments", "charge")).isEmpty();
  }

  @Test
  void theFrozenToolIsCompactNoSchemaUrlNoOpenObjectSchemaNoEmptyDescription() {
    Inventory inv =
        inventory(
            tool(
                "refund",
                "",
                "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
                    + "\"properties\":{\"charge\":{\"type\":\"string\"}}}"),
            tool("ping", "", "{\"type\":\"object\"}"));

    JsonNode tools = inv.json().path("payments").path("tools");

    assertThat(tools.path("refund").toString())
        .isEqualTo(
            "{\"inputSchema\":{\"type\":\"object\",\"properties\":{\"charge\":{\"type\":\"string\"}}}}");
    assertThat(tools.path("ping").toString()).isEqualTo("{}");
    assertThat(inv.tool("payments", "ping").orElseThrow().inputSchema().toString())
        .isEqualTo("{\"type\":\"object\"}");
    assertThat(inv.tool("payments", "ping").orElseThrow().description()).isEmpty();
  }
}
