package dev.flows.embed;

import dev.flows.sdk.RunId;
import java.util.List;

/**
 * Which runs of a flow {@link Flows#replayCheck} replays: {@link #active()} (not ended, the runs a
 * deploy would move), {@link #all()} (ended ones too), or {@link #runs(RunId...)} by id.
 */
public sealed interface ReplayCheck {
  /** The runs of the flow that have not ended. */
  static ReplayCheck active() {
    return new Active();
  }

  /** Every run of the flow the journal keeps, ended ones too. */
  static ReplayCheck all() {
    return new All();
  }

  /** These runs. */
  static ReplayCheck runs(RunId... ids) {
    return new Ids(List.of(ids));
  }

  /** See {@link #active()}. */
  record Active() implements ReplayCheck {}

  /** See {@link #all()}. */
  record All() implements ReplayCheck {}

  /** See {@link #runs(RunId...)}. */
  record Ids(List<RunId> ids) implements ReplayCheck {
    public Ids {
      ids = List.copyOf(ids);
    }
  }
}
