package dev.flows.testing;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.StepStatus;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * When the environment's runs wait on time only: none of them has a step ready now or running (an
 * attempt under a lease), except a flow body that waits in memory for child runs still open, and
 * some ready step comes due later (a timer, a signal's timeout, a retry backoff). Parked runs and
 * steps waiting on others do not move by time and are not counted.
 */
final class TimeSkips {
  /** The instruction type of a flow body's step. */
  private static final String FLOW = "flow";

  private final Journal journal;
  private final InstantSource clock;

  TimeSkips(Journal journal, InstantSource clock) {
    this.journal = journal;
    this.clock = clock;
  }

  /** The due time to skip to when every run under {@code roots} waits on time; else empty. */
  Optional<Instant> nextDue(Collection<RunRef> roots) {
    Instant now = clock.instant();
    Optional<Instant> next = Optional.empty();
    Deque<RunRef> open = new ArrayDeque<>(roots);
    Set<RunRef> seen = new HashSet<>();
    while (!open.isEmpty()) {
      RunRef id = open.pop();
      if (!seen.add(id)) {
        continue;
      }
      Optional<RunSnapshot> run = journal.run(id);
      if (run.isEmpty() || run.get().status().terminal()) {
        continue;
      }
      List<RunRef> children = journal.children(id);
      for (StepSnapshot s : run.get().steps()) {
        if (s.status() == StepStatus.RUNNING && !waitsOnChildren(run.get(), children)
            || s.status() == StepStatus.READY && !s.notBefore().isAfter(now)) {
          return Optional.empty();
        }
        if (s.status() == StepStatus.READY
            && next.map(n -> s.notBefore().isBefore(n)).orElse(true)) {
          next = Optional.of(s.notBefore());
        }
      }
      open.addAll(children);
    }
    return next;
  }

  /**
   * A flow body (its one step) with a child run still open: it waits for its children, in memory,
   * and the children say whether time is what they wait on.
   */
  private boolean waitsOnChildren(RunSnapshot run, List<RunRef> children) {
    boolean body =
        run.spec()
            .path("steps")
            .path(0)
            .path("agent")
            .path("instruction")
            .path("type")
            .asText()
            .equals(FLOW);
    return body
        && children.stream()
            .map(journal::run)
            .anyMatch(c -> c.isPresent() && !c.get().status().terminal());
  }
}
