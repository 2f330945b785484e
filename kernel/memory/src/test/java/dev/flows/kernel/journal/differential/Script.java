package dev.flows.kernel.journal.differential;

import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;

/**
 * What one script knows while it runs, learnt from the reference journal's answers (the subject's
 * were equal, or the script has stopped): its random source, the run ids it named, the requests
 * that admitted runs, and the attempts it was handed.
 */
final class Script {
  /** An attempt handed out by a claim or an inline start, with its step. */
  record Held(LeaseToken lease, StepSpec step) {}

  final long seed;
  final Random random;
  final ManualClock clock;

  /** Every run id the script named (admitted, tombstoned, or only asked about), in order. */
  final Set<RunRef> runs = new LinkedHashSet<>();

  /** The requests that admitted a run, by run id. */
  final Map<RunRef, StartRun> admitted = new LinkedHashMap<>();

  /** Attempts handed out, newest last. */
  final List<Held> held = new ArrayList<>();

  /** Steps some completion parked (they may have been resolved or canceled since). */
  final List<Held> parked = new ArrayList<>();

  private int counter;

  Script(long seed, ManualClock clock) {
    this.seed = seed;
    this.random = new Random(seed);
    this.clock = clock;
  }

  /** A name no other script uses: run ids stay apart even in a journal shared by scripts. */
  String fresh(String what) {
    return "s" + seed + "-" + what + (++counter);
  }

  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  int between(int lowest, int highest) {
    return lowest + random.nextInt(highest - lowest + 1);
  }

  <T> T pick(List<T> from) {
    return from.get(random.nextInt(from.size()));
  }

  @SafeVarargs
  final <T> T oneOf(T... from) {
    return from[random.nextInt(from.length)];
  }

  /** An attempt, mostly one of the newest (most likely still live), sometimes any. */
  Optional<Held> attempt() {
    if (held.isEmpty()) {
      return Optional.empty();
    }
    int newest = Math.min(3, held.size());
    return Optional.of(
        chance(0.8)
            ? held.get(held.size() - 1 - random.nextInt(newest))
            : held.get(random.nextInt(held.size())));
  }

  Optional<RunRef> admittedRun() {
    return admitted.isEmpty()
        ? Optional.empty()
        : Optional.of(pick(List.copyOf(admitted.keySet())));
  }

  /** Children of {@code parent} the script admitted. */
  List<RunRef> childrenOf(RunRef parent) {
    return admitted.values().stream()
        .filter(r -> r.parentRunId().equals(Optional.of(parent)))
        .map(r -> r.runId().orElseThrow())
        .toList();
  }

  /** A surface for an effect of {@code h}'s step: mostly one it declares, sometimes not. */
  String surface(Held h) {
    List<String> declared =
        h.step().body() instanceof StepBody.Agent a ? a.externalSurfaces() : List.of();
    if (declared.isEmpty() || chance(0.05)) {
      return "/undeclared/" + between(1, 2);
    }
    String s = pick(declared);
    return s.endsWith("/*") ? s.substring(0, s.length() - 1) + between(1, 12) : s;
  }

  void admit(StartRun r) {
    RunRef id = r.runId().orElseThrow();
    runs.add(id);
    admitted.putIfAbsent(id, r);
  }
}
