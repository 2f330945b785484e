package dev.flows.sdk.runtime;

import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmException;
import dev.flows.kernel.llm.LlmMessage;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.LlmUsage;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.sdk.ModelClient;
import java.util.List;

/**
 * A {@link ModelClient} a service gave in code, as the engine calls models: a thrown exception is
 * {@code llm_error} with its message, a {@code content_filter} answer {@code llm_refused}.
 */
public record ClientModelPort(String name, ModelClient client) implements ModelPort {
  @Override
  public String provider() {
    return client.provider();
  }

  @Override
  public String model() {
    return client.model();
  }

  @Override
  public LlmAnswer chat(LlmRequest request) throws InterruptedException {
    if (!request.tools().isEmpty()
        || request.messages().stream().anyMatch(m -> m.role() == LlmMessage.Role.TOOL)) {
      // ModelClient's messages are text alone: a tool call could not be sent or answered.
      throw LlmException.error(
          name,
          "model '"
              + name
              + "' is a ModelClient, which takes no tools; declare it in flows.json"
              + " (or give a LangChain4j model) to let an agent call tools",
          new IllegalArgumentException("tools for a ModelClient"));
    }
    List<ModelClient.Message> messages =
        request.messages().stream()
            .map(m -> new ModelClient.Message(role(m.role()), m.text()))
            .toList();
    ModelClient.Answer a;
    try {
      a = client.chat(messages, request.schema().map(LlmRequest.ResponseSchema::schema));
    } catch (InterruptedException e) {
      throw e;
    } catch (LlmException e) {
      throw e;
    } catch (Exception e) {
      throw LlmException.error(name, String.valueOf(e.getMessage()), e);
    }
    if (a.finishReason().equals(LlmAnswer.CONTENT_FILTER)) {
      throw LlmException.refused(
          name, "the model's content filter stopped the answer: " + a.text());
    }
    return new LlmAnswer(
        a.text(),
        new LlmUsage(a.usage().inputTokens(), a.usage().outputTokens()),
        a.finishReason());
  }

  private static ModelClient.Role role(LlmMessage.Role r) {
    return switch (r) {
      case SYSTEM -> ModelClient.Role.SYSTEM;
      case USER -> ModelClient.Role.USER;
      case ASSISTANT -> ModelClient.Role.ASSISTANT;
      case TOOL -> throw new IllegalArgumentException("refused in chat before mapping");
    };
  }
}
