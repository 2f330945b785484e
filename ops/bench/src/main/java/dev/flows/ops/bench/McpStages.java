package dev.flows.ops.bench;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StartRun;
import dev.flows.mcp.client.McpWireTimings;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a durable inline {@code f.mcp} call's time goes, per stage, from nine instants of one JVM
 * clock: the body's call begins ({@link BenchFlows.Mcp}), the election statement ({@code admit}
 * electing, which admits the child already claimed and elected) is sent and answered, the request
 * is on the wire, its response read and turned into the session's result (the client's {@link
 * McpWireTimings}), the confirm-and-complete statement is sent and answered, and the body has the
 * result. The journal verbs are timed by a proxy around the engine's journal; a call is matched to
 * its verbs by its child run id (the election runs on the body's thread, the confirmation on the
 * thread that got the answer).
 */
final class McpStages {
  static final List<String> STAGES =
      List.of(
          "record: call → election sent (lowering, child id, hand-in)",
          "record: election statement and commit (start_claimed)",
          "send: election acknowledged → request on the wire (lease, hand-off, encoding)",
          "server: request on the wire → response read and parsed",
          "receive: response parsed → the session's result (decoding, matching)",
          "receipt: result → confirm sent (outcome and receipt, hand-off to the finisher)",
          "confirm: confirm + complete statement and commit (confirm_and_succeed)",
          "wake-up: completion acknowledged → body has the result");

  /** Instants of one call: the indexes of {@link #STAGES}' boundaries. */
  private static final int CALL = 0;

  private static final int ELECT_SENT = 1;
  private static final int ELECTED = 2;
  private static final int ON_WIRE = 3;
  private static final int ANSWERED = 4;
  private static final int DELIVERED = 5;
  private static final int CONFIRM_SENT = 6;
  private static final int CONFIRMED = 7;
  private static final int ENDED = 8;

  /**
   * The call whose election was made last: at c=1 the only one in flight, so the client's wire
   * instants ({@link McpWireTimings}) are its own.
   */
  private static volatile long[] current = new long[ENDED + 1];

  private static final McpWireTimings.Probe WIRE =
      new McpWireTimings.Probe() {
        @Override
        public void sent(long nanos) {
          long[] t = current;
          if (t[ON_WIRE] == 0) {
            t[ON_WIRE] = nanos;
          }
        }

        @Override
        public void answered(long nanos) {
          long[] t = current;
          if (t[ON_WIRE] != 0 && t[ANSWERED] == 0) {
            t[ANSWERED] = nanos;
          }
        }

        @Override
        public void delivered(long nanos) {
          long[] t = current;
          if (t[ANSWERED] != 0 && t[DELIVERED] == 0) {
            t[DELIVERED] = nanos;
          }
        }
      };

  private static final ThreadLocal<Long> CALL_STARTED = new ThreadLocal<>();
  private static final ThreadLocal<String> LAST_CHILD = new ThreadLocal<>();

  /** Per child run: the instants of its call, {@link #CALL} to {@link #ENDED}. */
  private static final Map<String, long[]> CALLS = new ConcurrentHashMap<>();

  private static volatile boolean timing;

  /**
   * What the body does after each timed durable call, on its own thread: the interleaved bare call
   * of {@link McpStagesBench} (nothing when none is installed).
   */
  private static volatile Runnable between = () -> {};

  private McpStages() {}

  /** {@code after} runs after each durable call of the timed runs, until {@link #stop()}. */
  static void interleave(Runnable after) {
    between = after;
  }

  /** Called by the body after each call: runs what {@link #interleave} installed. */
  static void afterCall() {
    if (timing) {
      between.run();
    }
  }

  /** Times the calls made from now on (the previous ones are dropped). */
  static void start() {
    CALLS.clear();
    timing = true;
    McpWireTimings.install(WIRE);
  }

  /** Stops timing and answers each stage's durations over the calls timed end to end. */
  static List<Stats> stop() {
    timing = false;
    between = () -> {};
    McpWireTimings.uninstall();
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
        t[ENDED] = now;
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
                      t[CONFIRM_SENT] = begin;
                      t[CONFIRMED] = end;
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
      long[] t = new long[ENDED + 1];
      t[CALL] = started;
      t[ELECT_SENT] = begin;
      t[ELECTED] = end;
      current = t;
      CALLS.put(child, t);
      LAST_CHILD.set(child);
    }
  }
}
