package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.InputResponses;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.mcp.testkit.Jvm;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A 2025 server's live {@code elicitation/create} during a call (the stdio test server's {@code
 * ask_live}, which asks a form for a name): routed to the call in flight, answered by its {@code
 * LiveInput}, declined at once for a durable call without one, and answered with the schema's
 * defaults for a plain call on a connection that asks for defaults.
 */
class LiveElicitationTest {
  private static final McpClientConfig LIMITS = McpClientConfig.DEFAULTS;
  private static final CallOptions DURABLE = CallOptions.PLAIN.withDurableInput();
  private final List<McpConnection> connections = new ArrayList<>();

  @AfterEach
  void stop() {
    connections.forEach(McpConnection::stop);
  }

  private McpConnection connect(boolean routes, boolean defaults) throws Exception {
    McpConnection c =
        McpTestSupport.connection(Jvm.stdioServer("live", List.of(), Map.of()), LIMITS);
    if (routes) {
      c.routeLiveInputToCalls();
    }
    if (defaults) {
      c.answerElicitationsWithDefaults();
    }
    connections.add(c);
    get(c.connect());
    return c;
  }

  private static String text(ToolCallOutcome o) {
    assertThat(o).isInstanceOf(ToolCallOutcome.Completed.class);
    return ((ToolCallOutcome.Completed) o).result().text();
  }

  @Test
  void aLiveElicitationDuringADurableCallIsAnsweredByTheCallsLiveInput() throws Exception {
    McpConnection c = connect(true, false);
    List<InputRequest> asked = new CopyOnWriteArrayList<>();
    CallOptions options =
        DURABLE.withLiveInput(
            r -> {
              asked.add(r);
              return InputResponses.accept(
                  dev.flows.kernel.json.Jackson.mapper().createObjectNode().put("name", "Ada"));
            });

    String said = text(get(c.call("ask_live", Map.of(), Map.of(), options)));

    assertThat(c.protocolVersion()).startsWith("2025");
    assertThat(said).isEqualTo("hello Ada");
    assertThat(asked).singleElement().isInstanceOf(InputRequest.Form.class);
    InputRequest.Form form = (InputRequest.Form) asked.getFirst();
    assertThat(form.message()).isEqualTo("Who is asking?");
    assertThat(form.requestedSchema().path("required").get(0).asText()).isEqualTo("name");
    assertThat(form.raw().path("method").asText()).isEqualTo("elicitation/create");
  }

  @Test
  void aLiveElicitationDuringADurableCallWithoutALiveInputIsDeclinedAtOnce() throws Exception {
    McpConnection c = connect(true, true);

    assertThat(text(get(c.call("ask_live", Map.of(), Map.of(), DURABLE))))
        .isEqualTo("no name given (decline)");
  }

  @Test
  void aPlainCallOnAConnectionAnsweringWithDefaultsStillGetsTheDefaults() throws Exception {
    McpConnection c = connect(false, true);

    // The schema has no default for name: accepted with no content.
    assertThat(get(c.callTool("ask_live", Map.of(), Map.of(), false)).text())
        .isEqualTo("no name given (accept)");
  }

  @Test
  void aConnectionThatNeitherRoutesNorAnswersDeclaresNoElicitation() throws Exception {
    McpConnection c = connect(false, false);

    assertThat(text(get(c.call("ask_live", Map.of(), Map.of(), DURABLE))))
        .isEqualTo("no elicitation capability");
  }
}
