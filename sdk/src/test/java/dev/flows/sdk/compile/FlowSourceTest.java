package dev.flows.sdk.compile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlowSourceTest {
  static final String HELLO =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class Hello implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("hello").version("3").mcp("tickets").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          // f.mcp("commented") is not a call
          f.mcp("tickets").tool("classify").call(input);
          return JsonNodeFactory.instance.textNode("hi");
        }
      }
      """;

  @Test
  void aSingleFileFlowCompilesInProcessAndKeepsItsSourceHash(@TempDir Path dir) throws IOException {
    Path f = Files.writeString(dir.resolve("hello.flow.java"), HELLO);
    FlowSource.Compiled c = FlowSource.compile(f);
    assertThat(c.className()).isEqualTo("Hello");
    assertThat(c.flow().header().name()).isEqualTo("hello");
    assertThat(c.flow().header().version()).isEqualTo("3");
    assertThat(c.sourceHash()).isEqualTo(FlowSource.hash(HELLO)).hasSize(64);
  }

  @Test
  void theServersTheBodyCallsAreFoundInTheSourceIgnoringComments() {
    assertThat(FlowSource.mcpServersCalled(HELLO)).containsExactly("tickets");
  }

  @Test
  void aCompileErrorIsRefusedWithItsLine(@TempDir Path dir) throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("bad.flow.java"), HELLO.replace("return JsonNodeFactory", "retur x"));
    assertThatThrownBy(() -> FlowSource.compile(f))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.FLOW_INVALID);
              assertThat(e.place().orElseThrow()).startsWith(f + ":13:");
              assertThat(e.getMessage()).contains("does not compile");
            });
  }

  @Test
  void aFileWithoutAFlowClassOrWithTheWrongNameIsRefused(@TempDir Path dir) throws IOException {
    Path noFlow = Files.writeString(dir.resolve("x.flow.java"), "class X {}");
    assertThatThrownBy(() -> FlowSource.compile(noFlow))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FLOW_INVALID));
    Path wrongName = Files.writeString(dir.resolve("x.java"), HELLO);
    assertThatThrownBy(() -> FlowSource.compile(wrongName))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.fix().orElseThrow()).contains(".flow.java"));
  }
}
