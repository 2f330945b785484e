package dev.flows.embed;

import dev.flows.sdk.RunId;

/**
 * What {@link RunProgress} reports of a run as it happens: the text a running model turn has
 * streamed so far, and the run settling (ended, or parked until an operator decides).
 */
public sealed interface ProgressEvent permits ProgressEvent.PartialText, ProgressEvent.Settled {
  RunId runId();

  /**
   * The whole text a running model turn of step {@code stepId} (an {@code f.llm} call, an agent's
   * turn, an {@code llm} step) has streamed so far. Never journaled: the turn's receipt holds its
   * final message.
   */
  record PartialText(RunId runId, String stepId, String text) implements ProgressEvent {}

  /** The run ended or parked; the last event of a progress. */
  record Settled(RunId runId, RunState state) implements ProgressEvent {}
}
