package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * An answer to the requests of a step parked {@code input_required} ({@link Journal#answerInput}).
 */
public sealed interface InputAnswer {

  /**
   * The requests are answered: with one request, {@code response} is its answer (a form's content,
   * {@code {}} for a URL that was visited); with several, an object holding each request's answer
   * under the server's key for it.
   */
  record Accept(JsonNode response) implements InputAnswer {
    public Accept {
      Objects.requireNonNull(response, "response");
    }
  }

  /** Every request of the round is declined. */
  record Decline() implements InputAnswer {}
}
