package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.embed.RunFailedException;
import dev.flows.embed.RunHandle;
import dev.flows.sdk.ModelClient.Message;
import dev.flows.sdk.ModelClient.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@FlowsTest
class FakeModelTest {
  @Test
  void aModelAnswerIsReplayedFromTheJournalAfterACrashAndTheModelIsAskedOnce(
      FlowsTestEnvironment env) throws Exception {
    env.register(new Summarize());
    FakeModel fast = env.model("fast").answering("printer jams on page 2");
    env.mcpServer("tickets").tool("note", args -> Map.of("noted", true));
    env.crashWorkerAt(CrashPoint.BETWEEN_BODY_CALLS);

    RunHandle<String> run = env.start(Summarize.class, "T-7");

    assertThat(env.result(run)).isEqualTo("printer jams on page 2");
    assertThat(env.workersStarted()).isEqualTo(2);
    assertThat(fast.calls())
        .containsExactly(
            List.of(
                new Message(Role.SYSTEM, "You summarize tickets."),
                new Message(Role.USER, "summarize T-7")));
    assertThat(env.run(run.runId()))
        .succeeded()
        .performed("tickets", "note")
        .once()
        .withArgs(Map.of("ticket", "T-7", "text", "printer jams on page 2"));
  }

  @Test
  void aRefusalFailsTheRunLlmRefusedAndASpentScriptLlmError(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Summarize());
    env.model("fast").refusing("I cannot help with that");
    env.mcpServer("tickets").tool("note", args -> Map.of("noted", true));

    RunHandle<String> refused = env.start(Summarize.class, "T-8");
    assertThatThrownBy(() -> env.result(refused))
        .isInstanceOfSatisfying(
            RunFailedException.class, e -> assertThat(e.code()).isEqualTo("llm_refused"));

    RunHandle<String> spent = env.start(Summarize.class, "T-9");
    assertThatThrownBy(() -> env.result(spent))
        .isInstanceOfSatisfying(
            RunFailedException.class,
            e -> {
              assertThat(e.code()).isEqualTo("llm_error");
              assertThat(e.getMessage()).contains("the fake model fast has no answer left");
            });
    assertThat(env.mcpServer("tickets").tool("note").calls()).isEmpty();
  }
}
