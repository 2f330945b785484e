package dev.flows.embed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.json.Jackson;
import dev.flows.migrations.SchemaCheck;
import dev.flows.sdk.Flow;
import dev.flows.sdk.RunId;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.runtime.FlowTypes;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.PublicError;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerStats;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * flows inside a Java service: start flows, wait for their results, and (optionally) run them in
 * this process. Built by {@link #builder()}:
 *
 * <pre>{@code
 * Flows flows = Flows.builder().dataSource(ds).register(new Triage()).worker(w -> w.capacity(16))
 *     .build();
 * JsonNode out =
 *     flows.start(Triage.class, input, StartOptions.key("order-42")).result(Duration.ofMinutes(5));
 * }</pre>
 *
 * <p>Each registered flow is preflighted (servers connected, tools listed) once, at its first
 * start; the inventory frozen then serves every later start until {@link #refreshInventory}, or
 * until a run fails {@code mcp_unknown_tool} (the server's tools changed). Closing drains the
 * worker as SIGTERM drains {@code flows worker}, then closes the pool this instance opened.
 * Thread-safe.
 */
public final class Flows implements AutoCloseable {
  private static final ObjectMapper MAPPER = Jackson.mapper();

  private final Storage storage;
  private final FlowsEngine engine;
  private final FlowCatalog catalog;
  private final FlowsConfig servers;
  private final boolean runsWorker;
  private final JournalLimits journalLimits;
  private final AtomicBoolean closed = new AtomicBoolean();
  // Starts and drains of the worker, one at a time: a drain waits for running attempts.
  private final Object workerControl = new Object();
  private volatile boolean workerStarted;
  private volatile boolean drained;

  Flows(
      Storage storage,
      FlowsEngine engine,
      FlowCatalog catalog,
      FlowsConfig servers,
      boolean runsWorker,
      JournalLimits journalLimits) {
    this.storage = storage;
    this.engine = engine;
    this.catalog = catalog;
    this.servers = servers;
    this.runsWorker = runsWorker;
    this.journalLimits = journalLimits;
  }

  public static FlowsBuilder builder() {
    return new FlowsBuilder();
  }

  /**
   * The payload limits this instance's journal holds for its starts, signals and answers, for a
   * console mounted beside it to hold the same.
   */
  public JournalLimits journalLimits() {
    return journalLimits;
  }

  /**
   * Starts a run of the registered {@code flow} as {@code options} say: {@code
   * flows.start(Triage.class, input, StartOptions.key("order-42"))}. With a key, the start finds
   * the run the same key started before (same key, same run: the start is idempotent). {@code
   * input} is a JsonNode or anything Jackson turns into one. Refused before anything is journaled
   * when preflight fails ({@code mcp_unreachable}, ...); {@code flow_not_found} for a class not
   * registered.
   */
  public <I, O> RunHandle<O> start(
      Class<? extends Flow<I, O>> flow, I input, StartOptions options) {
    return PublicError.guard(
        () -> {
          JavaType output = FlowTypes.output(flow);
          return start(
              catalog.of(flow),
              input,
              options,
              j -> FlowTypes.<O>read(j, output, "the output of flow " + flow.getSimpleName()));
        });
  }

  /** Starts a new run each call (no key), on the header's queue. */
  public <I, O> RunHandle<O> start(Class<? extends Flow<I, O>> flow, I input) {
    return start(flow, input, StartOptions.none());
  }

  /**
   * As {@link #start(Class, Object, StartOptions)}, naming the flow by its header's name, for a
   * caller that does not compile against the flow's class. A flow this instance does not host (or
   * hosts at another version than {@link StartOptions#version}) is started for the workers that do:
   * routed as the newest run of it in the journal (at that version) was ({@link RoutedStarts});
   * {@code flow_not_found} when there is none.
   */
  public RunHandle<JsonNode> start(String flowName, Object input, StartOptions options) {
    return PublicError.guard(
        () -> {
          Optional<FlowCatalog.Registered> here =
              catalog
                  .named(flowName)
                  .filter(
                      r ->
                          options
                              .versionName()
                              .map(r.flow().header().version()::equals)
                              .orElse(true));
          if (here.isPresent()) {
            return start(here.get(), input, options, Function.identity());
          }
          StartedRun started =
              RoutedStarts.start(
                  engine,
                  storage
                      .dataSource()
                      .orElseThrow(
                          () ->
                              new FlowsException(
                                  ErrorCode.FLOW_NOT_FOUND,
                                  "no flow named " + flowName + " is registered here",
                                  "Flows.start",
                                  "register the flow with this instance (the in-memory journal"
                                      + " cannot route a run to a flow another service hosts)")),
                  flowName,
                  json(input),
                  options);
          return new RunHandle<>(
              this, started.runId(), started.created(), Function.identity(), Optional.empty());
        });
  }

  private <T> RunHandle<T> start(
      FlowCatalog.Registered r, Object input, StartOptions options, Function<JsonNode, T> as) {
    Inventory inventory = r.inventory(f -> engine.preflight(f, servers));
    Worker.ClaimedHere admitted =
        engine.admitHere(
            r.loaded(), json(input), options.idempotencyKey(), options.queueName(), inventory);
    StartedRun started = admitted.started();
    return new RunHandle<>(this, started.runId(), started.created(), as, admitted.end());
  }

  /**
   * A handle on an existing root run, e.g. one another process started: no worker and no registered
   * flow are needed to wait for its result. {@code run_not_found} when the journal has no such run.
   */
  public RunHandle<JsonNode> handle(RunId runId) {
    return handle(runId, Function.identity());
  }

  /** As {@link #handle(RunId)}, answering the output as a {@code resultType}. */
  public <T> RunHandle<T> handle(RunId runId, Class<T> resultType) {
    return handle(runId, as(resultType));
  }

  private <T> RunHandle<T> handle(RunId runId, Function<JsonNode, T> as) {
    return PublicError.guard(() -> handleOf(runId, as));
  }

  private <T> RunHandle<T> handleOf(RunId runId, Function<JsonNode, T> as) {
    RunRef id = Boundary.ref(runId);
    if (journal().run(id).isEmpty()) {
      throw new NotFoundException(
          ErrorCode.RUN_NOT_FOUND, "no run with id " + runId, runId.value());
    }
    return new RunHandle<>(this, id, false, as, Optional.empty());
  }

  /**
   * The versions of flow {@code flow} (its header's name) that have runs not ended or a live worker
   * serving them ({@code flows.versions}): per version its runs, the oldest one's start and the
   * workers that serve it, the oldest runs first, then versions served with no run. An unknown flow
   * answers an empty list. Refused {@code invalid_input} for a blank name, {@code config_invalid}
   * on the test kit's in-memory journal, which has no such view.
   */
  public java.util.List<VersionInfo> versions(String flow) {
    return PublicError.guard(() -> VersionReads.of(storage.dataSource(), flow));
  }

  /**
   * A search of the runs in the journal, newest first: {@code
   * flows.runs().named("triage").state(RunState.FAILED).list(50)}. Root runs of every flow, not
   * only the registered ones, unless filtered. Refused {@code config_invalid} on the test kit's
   * in-memory journal, which has no run listing.
   */
  public RunQuery runs() {
    return RunQuery.all(
        storage
            .dataSource()
            .orElseThrow(
                () ->
                    PublicError.of(
                        new FlowsException(
                            ErrorCode.CONFIG_INVALID,
                            "the in-memory journal has no run listing",
                            "Flows.runs()",
                            "list runs on Postgres (FlowsTestEnvironment with Journal.POSTGRES), or"
                                + " keep the handles start answered"))));
  }

  /**
   * Replays the journal of runs of {@code flow}'s name against the registered instance's code, as a
   * check before a deploy: nothing is run, sent or journaled (every memo, child, wait and timer is
   * answered from the journal; the body stops at each journal's end). {@code
   * flows.replayCheck(Triage.class, ReplayCheck.active()).compatible()}. {@link
   * ReplayCheck#active()} and {@link ReplayCheck#all()} list runs, so they are refused {@code
   * config_invalid} on the test kit's in-memory journal as {@link #runs()} is; an unknown run id:
   * {@code run_not_found}.
   */
  public ReplayReport replayCheck(Class<? extends Flow<?, ?>> flow, ReplayCheck runs) {
    return PublicError.guard(
        () ->
            ReplayChecks.run(
                journal(), engine.resolver(), this::runs, catalog.of(flow).flow(), runs));
  }

  /**
   * Moves runs of {@code to}'s flow to the registered instance's code at its header's version, the
   * embedding counterpart of {@code flows runs upgrade}: each run's journal is replay-checked
   * against that code first ({@link #replayCheck}), and a run that diverges stays where it was,
   * refused {@code replay_incompatible} at its position; a compatible one is moved ({@code
   * run.upgraded}, by {@code embed}) and replays on the new code from its next attempt. {@link
   * UpgradeRuns#fromVersion} lists runs, so it is refused {@code config_invalid} on the test kit's
   * in-memory journal as {@link #runs()} is. Refusals are per run, in the report, never thrown.
   */
  public UpgradeReport upgrade(Class<? extends Flow<?, ?>> to, UpgradeRuns runs) {
    return PublicError.guard(
        () ->
            Upgrades.run(journal(), engine.resolver(), this::runs, catalog.of(to).loaded(), runs));
  }

  /**
   * The schedules in the journal: create, list, pause, resume, update, delete, trigger, backfill
   * ({@link FlowSchedules}). Their ticks are started by workers with the flow, this instance's
   * worker among them when it runs one.
   */
  public FlowSchedules schedules() {
    return new FlowSchedules(journal(), Flows::json);
  }

  /**
   * The inventory the next start of {@code flow} freezes (preflighting if none is held yet), as
   * journaled in the run's spec: per server its transport, protocol version and tools.
   */
  public JsonNode inventory(Class<? extends Flow<?, ?>> flow) {
    return PublicError.guard(() -> inventoryOf(flow).json());
  }

  Inventory inventoryOf(Class<? extends Flow<?, ?>> flow) {
    FlowCatalog.Registered r = catalog.of(flow);
    return r.inventory(f -> engine.preflight(f, servers));
  }

  /**
   * Preflights {@code flow} again (connect, list tools) and keeps the new inventory for later
   * starts; runs already started keep the one frozen into them. On failure the old one stays.
   */
  public JsonNode refreshInventory(Class<? extends Flow<?, ?>> flow) {
    return PublicError.guard(
        () -> catalog.of(flow).refresh(f -> engine.preflight(f, servers)).json());
  }

  /** The journal this instance writes to; internal: the public API answers public snapshots. */
  Journal journal() {
    return engine.journal();
  }

  /**
   * Answers an MCP call parked {@code input_required} (what {@code flows runs answer} does): {@code
   * response} is checked against what the server asked (a form's content; {@code {}} for a visited
   * URL; with several requests an object keyed by request) and journaled, and the call is sent
   * again with it by whichever worker claims it; a parked flow awaiting it resumes. Refused with
   * {@link dev.flows.sdk.FlowsError} ({@code invalid_input}: not parked for input or an answer that
   * does not fit, writing nothing; {@code run_not_found}; {@code step_not_found}).
   */
  public RunInfo answer(RunId runId, String stepId, JsonNode response) {
    return PublicError.guard(
        () ->
            Boundary.info(
                journal()
                    .answerInput(
                        Boundary.ref(runId),
                        stepId,
                        new InputAnswer.Accept(response),
                        ANSWERED_BY)));
  }

  /** Declines every request of an MCP call parked {@code input_required}; see {@link #answer}. */
  public RunInfo decline(RunId runId, String stepId) {
    return PublicError.guard(
        () ->
            Boundary.info(
                journal()
                    .answerInput(
                        Boundary.ref(runId), stepId, new InputAnswer.Decline(), ANSWERED_BY)));
  }

  /** Who answered, as journaled in {@code step.answered}. */
  static final String ANSWERED_BY = "embed";

  /** Whether this instance runs a worker (else it only starts runs and waits for them). */
  public boolean runsWorker() {
    return runsWorker;
  }

  /**
   * Starts the worker of an instance built with {@link WorkerOptions#startLater()} (a built worker
   * starts at build otherwise), or again after {@link #drainWorker()} (a container that stops and
   * starts its context); does nothing while it runs. Refused {@code config_invalid} without a
   * worker, or after {@link #close()}.
   */
  public void startWorker() {
    if (!runsWorker || closed.get()) {
      throw PublicError.of(
          new FlowsException(
              ErrorCode.CONFIG_INVALID,
              runsWorker ? "this Flows was closed" : "this Flows was built without a worker",
              "Flows.startWorker",
              runsWorker
                  ? "build a new Flows to run a worker again"
                  : "build with .worker(w -> w.startLater())"));
    }
    synchronized (workerControl) {
      if (workerStarted && !drained) {
        return;
      }
      PublicError.guard(engine::startWorker);
      workerStarted = true;
      drained = false;
    }
  }

  /**
   * Drains the worker as {@link #close()} does, keeping the instance open: runs can still be
   * started (queued for any worker), read and waited for, and {@link #startWorker()} starts the
   * worker again. Idempotent; nothing to do without a worker.
   */
  public void drainWorker() {
    synchronized (workerControl) {
      if (!drained) {
        drained = true;
        engine.close();
      }
    }
  }

  /**
   * Checks the database (one connection, one query of the schema history) and reads the worker's
   * state; never throws: a database that does not answer is reported, not raised.
   */
  public FlowsHealth health() {
    FlowsHealth.Worker worker = workerState();
    Optional<DataSource> dataSource = storage.dataSource();
    if (dataSource.isEmpty()) {
      // The in-memory journal (the test kit's): nothing to reach, and no schema to be behind.
      return new FlowsHealth(true, true, worker, Optional.empty());
    }
    Connection c;
    try {
      c = dataSource.get().getConnection();
    } catch (SQLException | RuntimeException e) {
      return new FlowsHealth(false, false, worker, Optional.of(String.valueOf(e.getMessage())));
    }
    try (c) {
      return new FlowsHealth(true, SchemaCheck.current(c), worker, Optional.empty());
    } catch (SQLException | RuntimeException e) {
      // It answered, but not with a schema history of this build's shape.
      return new FlowsHealth(true, false, worker, Optional.of(String.valueOf(e.getMessage())));
    }
  }

  /** What the worker does now, read from memory (no query). */
  public FlowsHealth.Worker workerState() {
    if (!runsWorker) {
      return FlowsHealth.Worker.NONE;
    }
    if (engine.worker().claiming()) {
      return FlowsHealth.Worker.CLAIMING;
    }
    return workerStarted || drained ? FlowsHealth.Worker.STOPPED : FlowsHealth.Worker.NOT_STARTED;
  }

  /**
   * The attempts of this instance's worker since it first started, over its drains and starts (all
   * zero without a worker).
   */
  public WorkerCounts workerCounts() {
    WorkerStats s = engine.worker().stats();
    return new WorkerCounts(s.claimed(), s.completed(), s.leaseLost(), s.failed());
  }

  void cancel(RunRef run, String reason) {
    engine.cancelTree(run, reason);
  }

  /** The exception for a run that did not succeed; a tool the inventory lacked refreshes it. */
  RunNotSucceededException ended(RunSnapshot run) {
    RunNotSucceededException e = RunOutcomes.notSucceeded(journal(), run);
    if (e.code().equals(ErrorCode.MCP_UNKNOWN_TOOL.wire())) {
      catalog.named(run.name()).ifPresent(FlowCatalog.Registered::forget);
    }
    return e;
  }

  private static JsonNode json(Object input) {
    if (input instanceof JsonNode j) {
      return j;
    }
    try {
      return MAPPER.valueToTree(input);
    } catch (IllegalArgumentException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the input is not convertible to JSON: " + e.getMessage(),
          "input",
          "pass a JsonNode, a record, a Map or another value Jackson can write");
    }
  }

  private static <T> Function<JsonNode, T> as(Class<T> type) {
    return node -> {
      try {
        return MAPPER.treeToValue(node, type);
      } catch (JsonProcessingException | IllegalArgumentException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "the run's output is not a " + type.getSimpleName() + ": " + e.getMessage(),
            "result type " + type.getName(),
            "ask for the output as a type it fits, or as JsonNode");
      }
    };
  }

  /**
   * Drains as SIGTERM drains {@code flows worker}: stops claiming, lets running attempts finish
   * within the worker's stop grace, cancels the rest (each completes a retryable {@code
   * worker_error}, so no lease is left behind and another worker resumes it), stops MCP sessions,
   * then closes the journal and the pool this instance opened (never a DataSource it was given).
   * Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        drainWorker();
      } finally {
        storage.close();
      }
    }
  }
}
