package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.count;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.embed.Flows;
import dev.flows.embed.ReplayCheck;
import dev.flows.embed.ReplayReport;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.util.Optional;

/**
 * The replay check before a deploy ({@code Flows.replayCheck}, what {@code flows replay-check}
 * runs): N runs of a flow of ten {@code f.step}s waiting on a signal, checked against the same code
 * (every run compatible) and against a version that inserts a step before the wait (every run
 * diverges), with the journal's rows counted before and after (a check writes nothing).
 */
record ReplayCheckBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String DB = "bench_replaycheck";
  static final int STEPS = 10;

  /** Overrides the plan's waiting runs. */
  static final String RUNS_ENV = "FLOWS_BENCH_REPLAYCHECK_RUNS";

  /** How long the runs may take to reach their wait before the section gives up. */
  private static final Duration FILL_CAP = Duration.ofMinutes(15);

  /** What the section measured: runs checked, and each check's seconds and verdicts. */
  record Result(
      int runs,
      double fillSeconds,
      double sameSeconds,
      int sameCompatible,
      double changedSeconds,
      int changedDiverging,
      boolean rowsUnchanged) {}

  static int size(String mode) {
    return Optional.ofNullable(System.getenv(RUNS_ENV))
        .map(Integer::parseInt)
        .orElse(
            switch (mode) {
              case "smoke" -> 20;
              case "quick" -> 2_000;
              default -> 10_000;
            });
  }

  @Override
  public void run() throws Exception {
    int n = size(plan.mode());
    log("replay check: " + n + " runs of " + STEPS + " f.steps waiting on a signal");
    String url = pg.fresh(DB, true);
    try {
      double fill = fill(url, n);
      String rows = rows(url);
      Timed same = check(url, new Waiter());
      Timed changed = check(url, new WaiterChanged());
      log("  same code: " + same.report().summary());
      log("  changed code: " + changed.report().summary());
      report.replayCheck(
          new Result(
              n,
              fill,
              same.seconds(),
              (int) same.report().runs().stream().filter(ReplayReport.Run::compatible).count(),
              changed.seconds(),
              changed.report().diverging().size(),
              rows.equals(rows(url))));
    } finally {
      pg.drop(DB);
    }
  }

  /** A check's report and the seconds the check took (the instance's start left out). */
  record Timed(ReplayReport report, double seconds) {}

  /** Checks every active run against {@code code} from an instance of its own with no worker. */
  @SuppressWarnings("unchecked")
  private static Timed check(String url, Flow<JsonNode, JsonNode> code) {
    try (Flows check = Flows.builder().jdbcUrl(url).register(code).build()) {
      long t0 = System.nanoTime();
      ReplayReport r =
          check.replayCheck(
              (Class<? extends Flow<?, ?>>) (Class<?>) code.getClass(), ReplayCheck.active());
      return new Timed(r, (System.nanoTime() - t0) / 1e9);
    }
  }

  /** Starts the runs and waits until each body has given its attempt back at the wait. */
  private static double fill(String url, int n) throws Exception {
    long t0 = System.nanoTime();
    try (Flows flows =
        Flows.builder()
            .jdbcUrl(url)
            .register(new Waiter())
            .worker(w -> w.capacity(16).stopGrace(Engines.STOP_GRACE))
            .build()) {
      for (int i = 0; i < n; i++) {
        flows.start(Waiter.class, (JsonNode) JSON.objectNode().put("n", i));
      }
      long until = System.nanoTime() + FILL_CAP.toNanos();
      while (waiting(url) < n) {
        if (System.nanoTime() > until) {
          throw new IllegalStateException(
              waiting(url) + " of " + n + " runs reached their wait in " + FILL_CAP);
        }
        Thread.sleep(200);
      }
    }
    return (System.nanoTime() - t0) / 1e9;
  }

  /** Runs whose every step memo is journaled and whose body waits on its signal. */
  private static long waiting(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.runs r WHERE r.name = '"
            + Waiter.NAME
            + "' AND (SELECT count(*) FROM flows.journal_entries e WHERE e.run_id = r.run_id"
            + " AND e.entry_type = 'effect.confirmed') >= "
            + STEPS
            + " AND EXISTS (SELECT 1 FROM flows.steps s WHERE s.run_id = r.run_id"
            + " AND s.status = 'ready' AND s.last_reason = 'suspended')");
  }

  /** Every table's row count, in one string, to compare before and after the checks. */
  private static String rows(String url) throws Exception {
    StringBuilder out = new StringBuilder();
    for (String t : new String[] {"runs", "steps", "journal_entries", "effect_elections"}) {
      out.append(t).append('=').append(count(url, "SELECT count(*) FROM flows." + t)).append(' ');
    }
    return out.toString();
  }

  /** Ten steps, then a wait for a signal a day long. */
  static final class Waiter implements Flow<JsonNode, JsonNode> {
    static final String NAME = "bench-replaycheck";

    @Override
    public FlowHeader header() {
      return FlowHeader.named(NAME).version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      for (int i = 0; i < STEPS; i++) {
        int k = i;
        f.step("s" + i, () -> input.path("n").asInt() + k);
      }
      f.awaitSignal("go", Duration.ofDays(1));
      return JSON.textNode("done");
    }
  }

  /** Version 2: one more step before the wait, so every waiting run diverges there. */
  static final class WaiterChanged implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named(Waiter.NAME).version("2").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      for (int i = 0; i < STEPS; i++) {
        int k = i;
        f.step("s" + i, () -> input.path("n").asInt() + k);
      }
      f.step("inserted", () -> true);
      f.awaitSignal("go", Duration.ofDays(1));
      return JSON.textNode("done");
    }
  }
}
