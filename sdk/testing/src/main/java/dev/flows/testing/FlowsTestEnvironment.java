package dev.flows.testing;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsBuilder;
import dev.flows.embed.McpServer;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunInfo;
import dev.flows.embed.RunState;
import dev.flows.embed.internal.EmbedInternals;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Flow;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.RunId;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Flows under test: the embedding API ({@link #flows()}) on the in-memory journal or an embedded
 * Postgres ({@link JournalKind}), a worker running the registered flows, a virtual clock that moves
 * only when the test says ({@link #advance}) or, while the test waits for a run ({@link #result},
 * {@link #awaitEnd}), when every run waits on time only (auto-skip), fake MCP servers written in
 * the test ({@link #mcpServer(String)}), a view of what a run did ({@link #run}) for {@link
 * FlowsAssertions}, and in-process worker crashes ({@link #crashWorkerAt}).
 *
 * <p>Register flows and declare servers first; the first {@link #flows()} (or {@link #start})
 * builds the engine, after which neither changes. {@link #close} stops everything and drops the
 * database. Not for concurrent use by several test threads.
 */
public final class FlowsTestEnvironment implements AutoCloseable {
  /** How long {@link #result} and {@link #awaitEnd} wait in wall time before they give up. */
  public static final Duration DEFAULT_WALL_TIMEOUT = Duration.ofSeconds(30);

  /** How often a waiting test looks at its run and at whether time may be skipped. */
  static final Duration LOOK = Duration.ofMillis(10);

  private final JournalKind kind;
  private final boolean autoSkip;
  private final ManualClock clock;
  private final Instant started;
  private final List<Flow<?, ?>> flows = new ArrayList<>();
  private final Map<String, FakeMcpServer> fakes = new LinkedHashMap<>();
  private final List<McpServer> realServers = new ArrayList<>();
  private final Map<String, ModelClient> models = new LinkedHashMap<>();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final AtomicInteger workerNumbers = new AtomicInteger();
  private final List<KitWorker> workers = new ArrayList<>();
  private Optional<Running> running = Optional.empty();

  /** What exists once built: the journal, the client's view of it, the API, the time skips. */
  private record Running(
      Journal journal,
      KitJournal client,
      Flows flows,
      TimeSkips skips,
      Runnable closeJournal,
      Optional<EmbeddedDatabase.Fresh> database) {}

  FlowsTestEnvironment(JournalKind kind, boolean autoSkip, Instant start) {
    this.kind = kind;
    this.autoSkip = autoSkip;
    // Microseconds: Postgres' precision, so both journals see the same instants.
    this.started = start.truncatedTo(ChronoUnit.MICROS);
    this.clock = new ManualClock(started);
  }

  /** An environment on the in-memory journal, skipping time while the test waits. */
  public static FlowsTestEnvironment inMemory() {
    return builder().build();
  }

  /** An environment on an embedded Postgres (a fresh database), skipping time while it waits. */
  public static FlowsTestEnvironment onPostgres() {
    return builder().journal(JournalKind.POSTGRES).build();
  }

  public static FlowsTestEnvironmentBuilder builder() {
    return new FlowsTestEnvironmentBuilder();
  }

  /** Which journal this environment runs on. */
  public JournalKind journalKind() {
    return kind;
  }

  /** A flow the environment's worker runs and {@link #flows()} starts. */
  public FlowsTestEnvironment register(Flow<?, ?> flow) {
    requireNotBuilt("register a flow");
    flows.add(flow);
    return this;
  }

  /**
   * The fake MCP server named {@code name} (made at the first call, the same one after): flows
   * reach it as {@code f.mcp(name)}. Declare its tools before the run calls them.
   */
  public FakeMcpServer mcpServer(String name) {
    FakeMcpServer existing = fakes.get(name);
    if (existing != null) {
      return existing;
    }
    requireNotBuilt("add an MCP server");
    FakeMcpServer fake = new FakeMcpServer(name);
    fakes.put(name, fake);
    return fake;
  }

  /** A real MCP server (e.g. the examples' payments server over HTTP, or a stdio one). */
  public FlowsTestEnvironment mcpServer(McpServer server) {
    requireNotBuilt("add an MCP server");
    realServers.add(server);
    return this;
  }

  /**
   * The fake model named {@code name} (made at the first call, the same one after): flows whose
   * header declares it reach it as {@code f.llm(name)}. Script its answers before the run asks.
   */
  public FakeModel model(String name) {
    if (models.get(name) instanceof FakeModel existing) {
      return existing;
    }
    requireNotBuilt("add a model");
    FakeModel fake = new FakeModel(name);
    models.put(name, fake);
    return fake;
  }

  /** Any model client (a LangChain4j model wrapped, a recorded fixture) under {@code name}. */
  public FlowsTestEnvironment model(String name, ModelClient client) {
    requireNotBuilt("add a model");
    models.put(name, client);
    return this;
  }

  /**
   * The embedding API on this environment's journal (built, with its worker, at the first call).
   */
  public synchronized Flows flows() {
    return built().flows();
  }

  /** Starts a run of {@code flow}: as {@code flows().start(flow, input)}. */
  public <I, O> RunHandle<O> start(Class<? extends Flow<I, O>> flow, I input) {
    return flows().start(flow, input);
  }

  /** The virtual now: where the clock of the journal, the worker and the flows stands. */
  public Instant now() {
    return clock.instant();
  }

  /** How far the virtual clock moved since the environment began. */
  public Duration elapsed() {
    return Duration.between(started, clock.instant());
  }

  /**
   * Moves the virtual clock forward by {@code duration}: timers, signal timeouts, retry backoffs
   * and leases due by then come due, and the worker takes them up within milliseconds. A step
   * running meanwhile sees its lease pass as a stalled worker would.
   */
  public void advance(Duration duration) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException("time moves forward only: " + duration);
    }
    clock.advance(duration);
  }

  /**
   * Waits for {@code run}'s result as {@link RunHandle#result} does (the output, or its {@code
   * RunNotSucceededException}), skipping time while every run waits on time (unless auto-skip is
   * off); fails the test (an {@link AssertionError}) after {@link #DEFAULT_WALL_TIMEOUT} of wall
   * time.
   */
  public <T> T result(RunHandle<T> run) throws InterruptedException {
    awaitEnd(run.runId());
    return run.result(LOOK);
  }

  /**
   * Waits until {@code runId} ended or parked (a parked run does not move by itself), skipping time
   * as {@link #result} does, and answers its state then.
   */
  public RunInfo awaitEnd(RunId runId) throws InterruptedException {
    Flows api = flows();
    long deadline = System.nanoTime() + DEFAULT_WALL_TIMEOUT.toNanos();
    while (true) {
      RunInfo info = api.handle(runId).snapshot();
      if (info.state().ended() || info.state() == RunState.PARKED) {
        return info;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "run "
                + runId
                + " did not end within "
                + DEFAULT_WALL_TIMEOUT.toSeconds()
                + " s of wall time; it is "
                + info.state()
                + info.waitingReason().map(w -> " (" + w + ")").orElse(""));
      }
      Thread.sleep(LOOK);
      if (autoSkip) {
        skipIfWaitingOnTime();
      }
    }
  }

  /**
   * Skips to the next due time when every run waits on time, judged twice a moment apart so that a
   * run between two of its writes is not taken for waiting.
   */
  private void skipIfWaitingOnTime() throws InterruptedException {
    Running r = built();
    Optional<Instant> due = r.skips().nextDue(r.client().admitted());
    if (due.isEmpty()) {
      return;
    }
    Thread.sleep(LOOK);
    if (r.skips().nextDue(r.client().admitted()).equals(due) && due.get().isAfter(now())) {
      clock.advance(Duration.between(now(), due.get()));
    }
  }

  /** What run {@code runId} did, as the journal holds it, for {@link FlowsAssertions}. */
  public RunRecord run(RunId runId) {
    return RunRecord.read(built().journal(), new RunRef(runId.value()), flows());
  }

  /**
   * The environment's worker dies when it next reaches {@code point}, as a killed process: the
   * thread there never goes on, nothing more of that worker reaches the journal. A new worker
   * starts at once and the clock moves past the dead worker's lease ({@link #LEASE}), so the new
   * one takes the run over as it would in production.
   */
  public FlowsTestEnvironment crashWorkerAt(CrashPoint point) {
    Crashes.arm(new Crashes.Armed(point.point(), this::crashed, closed));
    return this;
  }

  /** The lease of the environment's workers: how far the clock skips after a crash. */
  public static final Duration LEASE = KitWorker.LEASE;

  /** How many workers this environment started (one, plus one per crash). */
  public synchronized int workersStarted() {
    return workers.size();
  }

  private synchronized void crashed() {
    workers.getLast().crash();
    Running r = built();
    workers.add(new KitWorker(r.journal(), clock, flows, models, workerNumbers.incrementAndGet()));
    clock.advance(LEASE.plusSeconds(1));
  }

  private synchronized Running built() {
    if (closed.getCount() == 0) {
      throw new IllegalStateException("this FlowsTestEnvironment is closed");
    }
    if (running.isEmpty()) {
      running = Optional.of(build());
    }
    return running.get();
  }

  private Running build() {
    Optional<EmbeddedDatabase.Fresh> db =
        kind == JournalKind.POSTGRES ? Optional.of(EmbeddedDatabase.fresh()) : Optional.empty();
    Journal journal;
    Runnable closeJournal;
    if (db.isPresent()) {
      PostgresJournal pg =
          PostgresJournal.connect(JournalStoreConfig.forUrl(db.get().jdbcUrl()), clock);
      journal = pg;
      closeJournal = pg::close;
    } else {
      journal = new InMemoryJournal(clock);
      closeJournal = () -> {};
    }
    KitJournal client = new KitJournal(journal);
    FlowsBuilder b = Flows.builder();
    flows.forEach(b::register);
    fakes.values().forEach(f -> b.mcpServer(f.config()));
    realServers.forEach(b::mcpServer);
    models.forEach(b::model);
    Flows api =
        EmbedInternals.build(
            b, client.journal(), db.map(EmbeddedDatabase.Fresh::dataSource), clock);
    workers.add(new KitWorker(journal, clock, flows, models, workerNumbers.incrementAndGet()));
    return new Running(journal, client, api, new TimeSkips(journal, clock), closeJournal, db);
  }

  private void requireNotBuilt(String what) {
    if (running.isPresent()) {
      throw new IllegalStateException(
          "cannot " + what + " after the environment was built (by flows() or start())");
    }
  }

  /** Stops the workers, the API, the fake servers and the journal; drops the database. */
  @Override
  public synchronized void close() {
    if (closed.getCount() == 0) {
      return;
    }
    closed.countDown();
    Crashes.disarm(closed);
    List<Runnable> steps = new ArrayList<>();
    workers.forEach(w -> steps.add(w::close));
    running.ifPresent(
        r -> {
          steps.add(r.flows()::close);
          steps.add(r.closeJournal());
          r.database().ifPresent(d -> steps.add(() -> EmbeddedDatabase.drop(d)));
        });
    fakes.values().forEach(f -> steps.add(f::close));
    RuntimeException first = null;
    for (Runnable step : steps) {
      try {
        step.run();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
