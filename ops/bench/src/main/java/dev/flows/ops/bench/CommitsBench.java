package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.mcpInput;
import static dev.flows.ops.bench.Runs.stepsInput;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Flow;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.worker.WorkerConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Commits and writes per f.step and per durable f.mcp on the success path (marginal cost). */
record CommitsBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  /**
   * Counters one engine lifetime spent (less the bench's own reads and polls), and how many of
   * those commits were the pool's liveness checks ({@link CheckedPool}).
   */
  record Spent(Pg.Counters counters, long checks) {
    /** Commits less the pool's liveness checks: what the engine itself asked for. */
    long engineCommits() {
      return counters.commits() - checks;
    }

    /**
     * Per call, between this (0 calls) and {@code n} ({@code count} calls): commits and writes raw,
     * then commits less the pool's liveness checks; then both runs' liveness checks, and the
     * engine's commits in all.
     */
    double[] marginal(Spent n, int count) {
      double commits = n.counters.commits() - counters.commits();
      double engine = n.engineCommits() - engineCommits();
      double writes = n.counters.writes() - counters.writes();
      return new double[] {
        commits / count, writes / count, engine / count, n.checks, checks, engine
      };
    }
  }

  /**
   * Counters spent by one engine lifetime (one run of {@code flow}) on a fresh engine and pool, the
   * pool closed before reading (so every backend has flushed its statistics), with the reads of
   * this method and its polling left out.
   */
  private Spent spentBy(Flow flow, ObjectNode input, boolean withServers) throws Exception {
    String url = pg.fresh("bench_commits", true);
    // Autovacuum's transactions count in xact_commit too, and a run of a few hundred inserts is
    // enough to start them on a fresh database: leave them out of an engine's count. The
    // migrations also leave the system catalogs due for a vacuum or an analyze, which an
    // autovacuum worker would do (with an xid) during some count: do it now.
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(Runs.NO_AUTOVACUUM);
      st.execute("VACUUM ANALYZE");
    }
    long polls = 0;
    long checks;
    Pg.Counters b;
    Pg.Counters perRead;
    try (McpServers servers = withServers ? McpServers.start() : null) {
      Inventory inv = withServers ? servers.inventory() : Inventory.empty();
      CheckedPool pool = new CheckedPool(JournalStoreConfig.forUrl(url));
      long checksBefore;
      try (pool;
          FlowsEngine engine = Engines.quiet(pool.journal, 4, DEFAULT_LEASE)) {
        engine.startWorker();
        // Start counting once the pool has opened all its connections (each opening is a few
        // transactions of its own, and a longer run would otherwise open more of them) and the
        // new backends have flushed their statistics.
        Pg.settleStats();
        Pg.Counters a = pg.counters(url);
        checksBefore = pool.checks();
        b = pg.counters(url);
        perRead = b.minus(a);
        RunRef run = engine.admit(Engines.loaded(flow), input, Optional.empty(), inv).runId();
        polls = awaitEnded(url, List.of(run));
      }
      checks = pool.checks() - checksBefore;
    }
    Pg.settleStats();
    Pg.Counters c = pg.counters(url);
    pg.drop("bench_commits");
    Pg.Counters spent = c.minus(b);
    return new Spent(
        new Pg.Counters(spent.commits() - perRead.commits() - polls, spent.writes()), checks);
  }

  @Override
  public void run() throws Exception {
    log("commits per f.step and per f.mcp");
    Spent zeroSteps = spentBy(BenchFlows.STEPS, stepsInput("z", 0), false);
    Spent nSteps = spentBy(BenchFlows.STEPS, stepsInput("n", plan.commitSteps()), false);
    Spent zeroCalls = spentBy(BenchFlows.MCP, mcpInput(BenchFlows.STDIO, 0), true);
    Spent nCalls = spentBy(BenchFlows.MCP, mcpInput(BenchFlows.STDIO, plan.commitCalls()), true);
    report.commits("f.step", plan.commitSteps(), zeroSteps.marginal(nSteps, plan.commitSteps()));
    report.commits(
        "durable f.mcp (stdio)",
        plan.commitCalls(),
        zeroCalls.marginal(nCalls, plan.commitCalls()));
  }
}
