package dev.flows.embed;

/**
 * Where a run is: {@code running}, {@code parked} (a step waits for an operator's decision), or
 * ended: {@code succeeded}, {@code failed}, {@code canceled}. The lower-case name is what {@code
 * flows runs show} prints.
 */
public enum RunState {
  RUNNING,
  PARKED,
  SUCCEEDED,
  FAILED,
  CANCELED;

  /** Whether the run ended (it moves no more unless an operator resumes it). */
  public boolean ended() {
    return this == SUCCEEDED || this == FAILED || this == CANCELED;
  }

  /** The name as the CLI and SQL views print it: {@code running}, ... */
  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
