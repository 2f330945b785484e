package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.stepsInput;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Cost as the journal grows: the same figures on a journal filled with copies of real ended runs
 * (of 1 and of 10 steps) and of runs waiting (asleep on a timer, awaiting a signal), and on an
 * empty journal beside it on the same server, measured in alternating rounds (empty, filled, then
 * filled, empty, ...) so a change of the machine's load hits both sides alike; each figure is a
 * ratio filled / empty of the pooled rounds. The database's work per verb call ({@link GrowthWork})
 * is counted on both too: it does not depend on the load.
 */
record GrowthBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;
  static final String DB = "bench_growth";

  /** The empty journal, measured beside the filled one on the same server. */
  static final String EMPTY_DB = "bench_growth_empty";

  /** Overrides the plan's ended runs (the waiting runs are a hundredth of them). */
  static final String RUNS_ENV = "FLOWS_BENCH_GROWTH_RUNS";

  /** How big the filled journal is, and how many samples each figure takes. */
  record Size(long ended, long waiting, int samples) {
    static Size of(String mode) {
      Size planned =
          switch (mode) {
            case "smoke" -> new Size(200, 20, 10);
            case "quick" -> new Size(100_000, 10_000, 200);
            // Ten million take about 70 GB of disk (a run of the mix holds 6.5-6.8 KB with its
            // indexes): FLOWS_BENCH_GROWTH_RUNS asks for it where the fill's disk preflight
            // finds the room.
            default -> new Size(2_000_000, 100_000, 500);
          };
      return Optional.ofNullable(System.getenv(RUNS_ENV))
          .map(Long::parseLong)
          .map(n -> new Size(n, Math.max(2, n / 100), planned.samples()))
          .orElse(planned);
    }
  }

  /** Overrides the rounds: the empty and the filled journal measured alternately. */
  static final String ROUNDS_ENV = "FLOWS_BENCH_GROWTH_ROUNDS";

  /** Rounds by default: each one measures both journals, in the order e f, then f e, ... */
  static final int ROUNDS = 4;

  /** The figures of one journal: latencies by name, then runs/s of 1-step runs. */
  record Figures(Map<String, Stats> latency, double runsPerSecond) {}

  /** What the section measured: figures pooled over the rounds, and each round's p50 ratios. */
  record Result(
      Size size,
      double fillSeconds,
      int rounds,
      Figures empty,
      Figures filled,
      Map<String, List<Double>> roundRatios,
      Optional<GrowthWork.Work> emptyWork,
      Optional<GrowthWork.Work> filledWork,
      Map<String, Long> bytes,
      List<String> plans) {}

  /** The latency figures, in the order the report gives them. */
  static final List<String> FIGURES =
      List.of(
          "admission",
          "claim",
          "memo",
          "completion",
          "signal sent",
          "signal sent -> body resumed",
          "timer due -> body resumed",
          "runs list (console first page)",
          "runs list --all",
          "runs show");

  /** The name of the throughput figure among the round ratios. */
  static final String RATE = "1-step runs/s";

  @Override
  public void run() throws Exception {
    Size size = Size.of(plan.mode());
    int rounds =
        Optional.ofNullable(System.getenv(ROUNDS_ENV)).map(Integer::parseInt).orElse(ROUNDS);
    log(
        "journal growth: "
            + size.ended()
            + " ended + "
            + size.waiting()
            + " waiting, beside empty");
    String filledUrl = pg.fresh(DB, true);
    try {
      long t0 = System.nanoTime();
      GrowthTemplates.fill(filledUrl, size, this::engine);
      double fillSeconds = (System.nanoTime() - t0) / 1e9;
      log("  filled in " + (int) fillSeconds + " s");
      Map<String, Long> bytes = GrowthSize.bytes(filledUrl);
      String emptyUrl = pg.fresh(EMPTY_DB, true);
      List<Figures> empty = new ArrayList<>();
      List<Figures> filled = new ArrayList<>();
      int perRound = Math.max(10, size.samples() / rounds);
      for (int r = 0; r < rounds; r++) {
        // Alternate which goes first, so a load that rises or falls within a round hits both.
        boolean emptyFirst = r % 2 == 0;
        Map<Boolean, Figures> engine = new LinkedHashMap<>();
        for (boolean e : new boolean[] {emptyFirst, !emptyFirst}) {
          engine.put(e, figures(e ? emptyUrl : filledUrl, perRound, (e ? "e" : "f") + r));
        }
        // After the engine's, so both journals hold an ended f.step run for runs show to read.
        List<Map<String, Stats>> calls = calls(List.of(emptyUrl, filledUrl), perRound);
        engine.get(true).latency().putAll(calls.get(0));
        engine.get(false).latency().putAll(calls.get(1));
        empty.add(engine.get(true));
        filled.add(engine.get(false));
        log("  round " + (r + 1) + " of " + rounds);
      }
      Optional<GrowthWork.Work> emptyWork = GrowthWork.measure(pg, EMPTY_DB);
      Optional<GrowthWork.Work> filledWork = GrowthWork.measure(pg, DB);
      report.growth(
          new Result(
              size,
              fillSeconds,
              rounds,
              pool(empty),
              pool(filled),
              roundRatios(empty, filled),
              emptyWork,
              filledWork,
              bytes,
              GrowthReads.plans(filledUrl)));
    } finally {
      pg.drop(DB);
      pg.drop(EMPTY_DB);
    }
  }

  /** Every round's samples together; runs/s over all the rounds' runs. */
  static Figures pool(List<Figures> rounds) {
    Map<String, Stats> lat = new LinkedHashMap<>();
    for (String f : FIGURES) {
      List<Long> all = new ArrayList<>();
      rounds.forEach(r -> all.addAll(r.latency().get(f).sortedNanos()));
      lat.put(f, Stats.of(all));
    }
    double secondsPerRun =
        rounds.stream().mapToDouble(r -> 1 / r.runsPerSecond()).average().orElse(Double.NaN);
    return new Figures(lat, 1 / secondsPerRun);
  }

  /** Per figure, each round's filled / empty p50 (for 1-step runs/s, filled / empty rate). */
  static Map<String, List<Double>> roundRatios(List<Figures> empty, List<Figures> filled) {
    Map<String, List<Double>> out = new LinkedHashMap<>();
    for (int r = 0; r < empty.size(); r++) {
      Figures e = empty.get(r);
      Figures f = filled.get(r);
      for (String name : FIGURES) {
        out.computeIfAbsent(name, k -> new ArrayList<>())
            .add(f.latency().get(name).p50() / e.latency().get(name).p50());
      }
      out.computeIfAbsent(RATE, k -> new ArrayList<>()).add(f.runsPerSecond() / e.runsPerSecond());
    }
    return out;
  }

  private FlowsEngine engine(PostgresJournal journal) {
    FlowsEngine e = Engines.engine(journal, 4, DEFAULT_LEASE);
    e.register(GrowthFlows.NAP);
    e.register(GrowthFlows.WAITER);
    return e;
  }

  /**
   * The verbs' and reads' latencies of each journal, the journals taking turns call by call: they
   * need no engine, so they alternate finer than the rounds do.
   */
  private static List<Map<String, Stats>> calls(List<String> urls, int samples) throws Exception {
    List<Map<String, Stats>> out = new ArrayList<>();
    List<PostgresJournal> journals = new ArrayList<>();
    try {
      for (String url : urls) {
        journals.add(PostgresJournal.connect(JournalStoreConfig.forUrl(url)));
      }
      out.addAll(GrowthProbe.paired(journals, samples));
    } finally {
      for (PostgresJournal j : journals) {
        j.close();
      }
    }
    List<Map<String, Stats>> reads = GrowthReads.paired(urls, samples);
    for (int i = 0; i < out.size(); i++) {
      out.get(i).putAll(reads.get(i));
    }
    return out;
  }

  /**
   * The engine's figures on the journal as it is now (the latencies in a map the round adds the
   * verbs' and reads' to); run ids made here start with {@code tag}.
   */
  private Figures figures(String url, int samples, String tag) throws Exception {
    Map<String, Stats> lat = new LinkedHashMap<>();
    double rate;
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = engine(journal)) {
      engine.startWorker();
      admitAndWait(url, engine, BenchFlows.STEPS, 4, i -> stepsInput(tag + "w" + i, 1));
      lat.put("signal sent -> body resumed", signals(url, engine, journal, samples, tag));
      lat.put("timer due -> body resumed", timers(url, engine, samples, tag));
      int runs = Math.max(20, samples);
      double secs =
          admitAndWait(url, engine, BenchFlows.STEPS, runs, i -> stepsInput(tag + "t" + i, 1));
      rate = runs / secs;
    }
    return new Figures(lat, rate);
  }

  /** Runs awaiting a signal, each sent one once it waits; send to the body going on. */
  private static Stats signals(
      String url, FlowsEngine engine, PostgresJournal journal, int samples, String tag)
      throws Exception {
    int n = Math.max(5, samples / 10);
    List<RunRef> runs = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      runs.add(admit(engine, GrowthFlows.WAITER, JSON.objectNode().put("id", tag + "s" + i)));
    }
    awaitWaiting(url, runs);
    List<Long> lags = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      Instant sent = Instant.now();
      journal.sendSignal(
          runs.get(i), GrowthFlows.Waiter.SIGNAL, JSON.objectNode(), Optional.empty());
      awaitEnded(url, List.of(runs.get(i)), Optional.of(journal));
      lags.add(Duration.between(sent, GrowthFlows.RESUMED.get(tag + "s" + i)).toNanos());
    }
    return Stats.of(lags);
  }

  /** Runs asleep on timers due 20 ms apart from 2 s on: due time to the body going on. */
  private static Stats timers(String url, FlowsEngine engine, int samples, String tag)
      throws Exception {
    int n = Math.max(5, samples / 10);
    Instant first = Instant.now().plusSeconds(2);
    List<RunRef> runs = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      Instant due = first.plusMillis(20L * i);
      runs.add(
          admit(
              engine,
              GrowthFlows.NAP,
              JSON.objectNode().put("id", tag + "n" + i).put("until", due.toString())));
    }
    awaitEnded(url, runs, Optional.of(engine.journal()));
    List<Long> lags = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      Instant due = first.plusMillis(20L * i);
      lags.add(Duration.between(due, GrowthFlows.RESUMED.get(tag + "n" + i)).toNanos());
    }
    return Stats.of(lags);
  }

  static RunRef admit(
      FlowsEngine engine, dev.flows.sdk.Flow flow, com.fasterxml.jackson.databind.JsonNode input) {
    return engine.admit(Engines.loaded(flow), input, Optional.empty(), Inventory.empty()).runId();
  }

  /** Until every run has given its attempt back to wait (its body suspended). */
  static void awaitWaiting(String url, List<RunRef> runs) throws Exception {
    String ids = String.join("','", runs.stream().map(RunRef::value).toList());
    long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (count(
            url,
            "SELECT count(*) FROM flows.steps WHERE run_id IN ('"
                + ids
                + "') AND status = 'ready' AND last_reason = 'suspended'")
        < runs.size()) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("runs did not come to wait within 2 minutes");
      }
      Thread.sleep(20);
    }
  }
}
