package dev.flows.kernel.journal;

import java.util.List;
import java.util.Objects;

/**
 * The partial text of model turns while they run, for readers in any process ({@code flows runs
 * watch}, the console, {@code RunHandle.progress()}): published live and never journaled. A writer
 * publishes a turn's whole text so far, coalesced ({@link #COALESCE_MILLIS}), and clears it when
 * the turn ends; a turn whose worker died leaves its text until the turn is asked again (the new
 * attempt overwrites it) or the run ends (readers show partial text of running runs only).
 */
public interface LiveText {
  /** How often, at most, a turn's growing text is published (one write per turn per period). */
  long COALESCE_MILLIS = 100;

  /** Sets the text so far of the model turn step {@code stepId} of {@code runId} is running. */
  void publish(RunRef runId, String stepId, String text);

  /** Forgets the turn's partial text: its answer is journaled, or it failed. */
  void clear(RunRef runId, String stepId);

  /** The partial text of each of the run's running turns, by step id. */
  List<Partial> of(RunRef runId);

  /** One running turn's text so far. */
  record Partial(String stepId, String text) {
    public Partial {
      Objects.requireNonNull(stepId, "stepId");
      Objects.requireNonNull(text, "text");
    }
  }

  /** A journal that cannot share partial text across processes publishes nothing. */
  LiveText NONE =
      new LiveText() {
        @Override
        public void publish(RunRef runId, String stepId, String text) {}

        @Override
        public void clear(RunRef runId, String stepId) {}

        @Override
        public List<Partial> of(RunRef runId) {
          return List.of();
        }
      };
}
