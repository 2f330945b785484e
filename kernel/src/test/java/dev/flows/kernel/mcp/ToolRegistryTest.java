package dev.flows.kernel.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {
  private final ToolRegistry registry = new ToolRegistry();
  private final List<String> events = new ArrayList<>();

  ToolRegistryTest() {
    registry.addListener(
        new ToolRegistry.Listener() {
          @Override
          public void added(ToolDescriptor t) {
            events.add("+" + t.qualifiedName());
          }

          @Override
          public void removed(ToolDescriptor t) {
            events.add("-" + t.qualifiedName());
          }
        });
  }

  private static ToolDescriptor tool(String server, String name, String description) {
    return new ToolDescriptor(
        server,
        name,
        Optional.empty(),
        Optional.of(description),
        JsonNodeFactory.instance.objectNode(),
        Optional.empty(),
        ToolDescriptor.ToolHints.NONE);
  }

  @Test
  void replacingWithTheSameToolsAfterAReconnectAddsNoDuplicateAndFiresNothing() {
    registry.replace("a", List.of(tool("a", "echo", "e"), tool("a", "sum", "s")));
    events.clear();
    registry.replace("a", List.of(tool("a", "echo", "e"), tool("a", "sum", "s")));
    assertThat(registry.all())
        .extracting(ToolDescriptor::qualifiedName)
        .containsExactly("a/echo", "a/sum");
    assertThat(events).isEmpty();
  }

  @Test
  void aChangedListRemovesTheGoneToolsAndAddsTheNewOnes() {
    registry.replace("a", List.of(tool("a", "echo", "e"), tool("a", "sum", "s")));
    registry.replace("b", List.of(tool("b", "echo", "e")));
    events.clear();
    registry.replace("a", List.of(tool("a", "echo", "e2"), tool("a", "max", "m")));
    assertThat(events).containsExactlyInAnyOrder("-a/echo", "-a/sum", "+a/echo", "+a/max");
    registry.removeServer("a");
    assertThat(registry.all()).extracting(ToolDescriptor::qualifiedName).containsExactly("b/echo");
    assertThat(registry.find("a", "echo")).isEmpty();
  }
}
