package dev.flows.ops.bench;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StartRun;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a durable inline {@code f.mcp} call's time goes, per stage, from five instants of one JVM
 * clock: the body's call begins ({@link BenchFlows.Mcp}), the election statement ({@code admit}
 * electing, which admits the child already claimed and elected) is sent and answered, the
 * confirm-and-complete statement is sent and answered, and the body has the result. The journal
 * verbs are timed by a proxy around the engine's journal; a call is matched to its verbs by its
 * child run id (the election runs on the body's thread, the confirmation on the thread that got the
 * answer).
 */
final class McpStages {
  static final List<String> STAGES =
      List.of(
          "call → election sent (lowering, child id, hand-in)",
          "election statement and commit (start_claimed)",
          "election acknowledged → answer handled (hand-offs and the MCP exchange)",
          "confirm + complete statement and commit",
          "completion acknowledged → body has the result (wake)");

  private static final ThreadLocal<Long> CALL_STARTED = new ThreadLocal<>();
  private static final ThreadLocal<String> LAST_CHILD = new ThreadLocal<>();

  /** Per child run: call start, election sent, acknowledged, confirm sent, acknowledged, end. */
  private static final Map<String, long[]> CALLS = new ConcurrentHashMap<>();

  private static volatile boolean timing;

  private McpStages() {}

  /** Times the calls made from now on (the previous ones are dropped). */
  static void start() {
    CALLS.clear();
    timing = true;
  }

  /** Stops timing and answers each stage's durations over the calls timed end to end. */
  static List<Stats> stop() {
    timing = false;
    List<List<Long>> stages = new ArrayList<>();
    for (int i = 0; i < STAGES.size(); i++) {
      stages.add(new ArrayList<>());
    }
    for (long[] t : CALLS.values()) {
      if (java.util.Arrays.stream(t).allMatch(v -> v != 0)) {
        for (int i = 0; i < STAGES.size(); i++) {
          stages.get(i).add(t[i + 1] - t[i]);
        }
      }
    }
    CALLS.clear();
    return stages.stream().map(Stats::of).toList();
  }

  static void callStarted() {
    if (timing) {
      CALL_STARTED.set(System.nanoTime());
    }
  }

  static void callEnded() {
    long now = System.nanoTime();
    String child = LAST_CHILD.get();
    if (timing && child != null) {
      long[] t = CALLS.get(child);
      if (t != null) {
        t[5] = now;
      }
    }
    CALL_STARTED.remove();
    LAST_CHILD.remove();
  }

  /** {@code journal} with its {@code admit} electing and {@code confirmAndComplete} timed. */
  static Journal timed(Journal journal) {
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, m, args) -> {
              long begin = System.nanoTime();
              Object answer;
              try {
                answer = m.invoke(journal, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
              long end = System.nanoTime();
              if (timing) {
                switch (m.getName()) {
                  case "admit" -> {
                    if (args[1] instanceof dev.flows.kernel.journal.Admit.Electing) {
                      elected((StartRun) args[0], begin, end);
                    }
                  }
                  case "confirmAndComplete" -> {
                    long[] t = CALLS.get(((LeaseToken) args[0]).runId().value());
                    if (t != null) {
                      t[3] = begin;
                      t[4] = end;
                    }
                  }
                  default -> {}
                }
              }
              return answer;
            });
  }

  private static void elected(StartRun r, long begin, long end) {
    Long started = CALL_STARTED.get();
    if (started != null && r.runId().isPresent()) {
      String child = r.runId().get().value();
      CALLS.put(child, new long[] {started, begin, end, 0, 0, 0});
      LAST_CHILD.set(child);
    }
  }
}
