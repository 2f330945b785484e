package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.worker.AgentExecutor;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.ResilientJournal;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerLease;
import dev.flows.worker.exec.DeterministicExecutor;
import dev.flows.worker.llm.LlmCalls;
import dev.flows.worker.llm.LlmExecutor;
import dev.flows.worker.llm.ModelRegistry;
import dev.flows.worker.mcp.InlineMcpCalls;
import dev.flows.worker.mcp.McpToolExecutor;
import dev.flows.worker.mcp.ReceiptBound;
import dev.flows.worker.mcp.TaskCancels;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Everything needed to start and run flows against one journal: preflight, admission of root runs,
 * and a worker serving flow bodies, MCP calls and commands. The CLI, tests and embedding
 * applications all assemble the engine here, so they behave the same.
 */
public final class FlowsEngine implements AutoCloseable {
  private final Journal journal;
  private final SdkConfig config;
  private final McpCredentials credentials;
  private final FlowResolver resolver = new FlowResolver();
  private final McpSessions sessions;
  private final Worker worker;
  private final InlineMcpCalls inline;
  private final WorkerConfig workerConfig;
  private final ModelRegistry models;
  private final LlmCalls llmCalls = LlmCalls.standard();
  private final ScheduleTicker ticker;
  private final ScheduleTemplates templates;
  private final String workerName;
  private final SecretKeys secretKeys;

  public FlowsEngine(
      Journal journal,
      WorkerConfig workerConfig,
      SdkConfig config,
      McpClientConfig mcpLimits,
      McpCredentials credentials) {
    this(journal, workerConfig, config, mcpLimits, credentials, InstantSource.system());
  }

  /**
   * An engine whose worker, leases and flow bodies read the time from {@code clock} (the system
   * clock outside tests); the journal judges leases by its own clock.
   */
  public FlowsEngine(
      Journal journal,
      WorkerConfig workerConfig,
      SdkConfig config,
      McpClientConfig mcpLimits,
      McpCredentials credentials,
      InstantSource clock) {
    this(journal, workerConfig, config, mcpLimits, credentials, clock, Worker.processWorkerId());
  }

  /** As above, with a chosen worker id: several engines hosted in one process (tests). */
  public FlowsEngine(
      Journal journal,
      WorkerConfig workerConfig,
      SdkConfig config,
      McpClientConfig mcpLimits,
      McpCredentials credentials,
      InstantSource clock,
      WorkerId workerId) {
    // The engine's parts retry the journal's outages as its worker does (the worker wraps its own).
    this.journal = new ResilientJournal(journal, workerConfig);
    this.config = config;
    this.credentials = credentials;
    // A model's API key is a secret as an MCP server's is: read where the embedder says.
    this.models = new ModelRegistry(credentials::variable);
    this.sessions = new McpSessions(mcpLimits, credentials);
    // Secret keys are read as the other secrets are; flows.json names their variables.
    this.secretKeys = new SecretKeys(credentials::variable);
    McpToolExecutor mcp =
        new McpToolExecutor(sessions, this.journal, clock, secretKeys)
            .receipts(new ReceiptBound(workerConfig.payloadLimits().maxReceiptBytes()));
    // A body's first MCP calls run on its own worker, through the same executor, under a lease
    // of this worker (see InlineMcpCalls): no claim, no worker slot, no polling.
    // One WorkerLease (one lease keeper) for the claimed attempts and the inline calls alike: all
    // of this worker's leases are renewed together, one journal write per renewal tick.
    WorkerLease leases = new WorkerLease(this.journal, workerConfig, clock);
    this.workerConfig = workerConfig;
    this.inline =
        new InlineMcpCalls(this.journal, mcp, leases, workerId, workerConfig.defaultLease(), clock);
    FlowBodyRunner runner =
        new FlowBodyRunner(this.journal, resolver, config, inline, clock)
            .models(new BodyModels(models, llmCalls))
            .secrets(secretKeys)
            .limits(workerConfig.payloadLimits());
    ExecutorRegistry executors =
        ExecutorRegistry.of(
            new DeterministicExecutor(workerConfig),
            new LlmExecutor(models, llmCalls, this.journal.liveText()),
            new AgentExecutor(List.of(new FlowInstructionExecutor(runner), mcp)));
    this.worker =
        new Worker(journal, executors, workerConfig, clock, workerId, Optional.of(leases));
    // Flow classes registered here (at their versions) are the only class-path bodies it claims,
    // and the flow sources it was given the only single-file bodies.
    this.worker.addRoutes(resolver::routes);
    this.worker.addRoutePrefixes(resolver::routePrefixes);
    this.worker.noteWhenUnaccepted(FlowResolver.SOURCE_ROUTES, UNACCEPTED_SOURCE);
    // Tasks of runs that ended (canceled, failed) while the task still ran get tasks/cancel.
    this.worker.addSweep(new TaskCancels(this.journal, sessions, workerId));
    // Ticks of schedules of the flows this worker has (classes, flow files): whichever worker sees
    // one first.
    this.templates = new ScheduleTemplates(resolver, config, this::preflight);
    this.workerName = workerId.value();
    this.ticker =
        new ScheduleTicker(
            this.journal,
            templates::names,
            templates::of,
            workerId.value(),
            ScheduleTicker.DEFAULT_POLL);
  }

  /** This engine's schedule ticker (started with the worker). */
  public ScheduleTicker scheduleTicker() {
    return ticker;
  }

  /** Why a single-file flow's body waits when no worker was given its source. */
  public static final String UNACCEPTED_SOURCE = "no worker accepts this flow source";

  /**
   * This engine's worker also runs the single-file flows under {@code dirs}, and calls the models
   * the nearest flows.json of each declares (the file those flows' own starts read).
   */
  public FlowsEngine acceptSourcesUnder(List<java.nio.file.Path> dirs) {
    resolver.acceptSourcesUnder(dirs);
    for (java.nio.file.Path dir : dirs) {
      FlowsConfig found = FlowsConfigLoader.loadNearest(dir);
      found.models().values().forEach(models::declare);
      declareSecretKeys(found);
    }
    return this;
  }

  /** This engine's worker runs every single-file flow source the journal carries. */
  public FlowsEngine acceptJournalSources() {
    resolver.acceptJournalSources();
    return this;
  }

  /** The queues this engine's worker claims from (default: {@code default}). */
  public FlowsEngine serveQueues(java.util.Set<String> queues) {
    worker.serveQueues(queues);
    return this;
  }

  public static FlowsEngine withDefaults(Journal journal) {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        McpCredentials.fromEnvironment());
  }

  public Journal journal() {
    return journal;
  }

  /**
   * The models this engine's worker calls ({@code llm} steps, {@code f.llm}): those given in code
   * and those of every flows.json a start read.
   */
  public ModelRegistry models() {
    return models;
  }

  public FlowResolver resolver() {
    return resolver;
  }

  public Worker worker() {
    return worker;
  }

  /**
   * Preflights the flow (pure pass, then connect pass) and answers the inventory to freeze. Throws
   * {@link PreflightException} with every problem; nothing is journaled.
   */
  public Inventory preflight(LoadedFlow flow, FlowsConfig servers) {
    Inventory inventory =
        Preflight.check(
            flow,
            servers,
            models.models().byName().keySet(),
            config.preflightTimeout(),
            credentials);
    servers.models().values().forEach(models::declare);
    declareSecretKeys(servers);
    return inventory;
  }

  /**
   * This engine seals secrets under the first {@code secrets.keyEnv} a flows.json it read names,
   * and opens them with any key those files name.
   */
  public FlowsEngine declareSecretKeys(FlowsConfig config) {
    config.secretKeys().ifPresent(k -> secretKeys.declare(k.keyEnv(), k.oldKeyEnvs()));
    return this;
  }

  /** Preflights with the nearest flows.json and admits the root run. */
  public StartedRun start(LoadedFlow flow, JsonNode input, Optional<String> key) {
    return start(flow, input, key, Optional.empty());
  }

  /** As {@link #start(LoadedFlow, JsonNode, Optional)}, for a run that repeats {@code rerunOf}. */
  public StartedRun start(
      LoadedFlow flow, JsonNode input, Optional<String> key, Optional<RunRef> rerunOf) {
    FlowsConfig servers = FlowsConfigLoader.loadNearest(flow.configSearchStart());
    Inventory inventory = preflight(flow, servers);
    return admit(flow, input, key, inventory, rerunOf, Optional.empty()).started();
  }

  /** Admits a root run for an already preflighted flow. Idempotent by {@code key}. */
  public StartedRun admit(
      LoadedFlow flow, JsonNode input, Optional<String> key, Inventory inventory) {
    return admitHere(flow, input, key, inventory).started();
  }

  /**
   * As {@link #admit}; when this engine's worker runs and has a free slot the run is admitted
   * already claimed by it and its body starts at once ({@link Worker#startClaimed}), and the answer
   * carries the end of that attempt, so a waiter in this process gets the output without reading
   * the run. A start without a key runs its body before admitting the run, for up to {@link
   * SdkConfig#memoDelay}: a body that ends in success by then is admitted with its end in one
   * transaction ({@link dev.flows.kernel.journal.Admit.WithItsEnd}); this answers once the run is
   * admitted. Otherwise the run is admitted for any worker to claim.
   */
  public Worker.ClaimedHere admitHere(
      LoadedFlow flow, JsonNode input, Optional<String> key, Inventory inventory) {
    return admit(flow, input, key, inventory, Optional.empty(), Optional.empty());
  }

  /** As above, the run going to {@code queue} instead of the header's queue when one is given. */
  public Worker.ClaimedHere admitHere(
      LoadedFlow flow,
      JsonNode input,
      Optional<String> key,
      Optional<String> queue,
      Inventory inventory) {
    queue.ifPresent(dev.flows.kernel.journal.Queues::require);
    return admit(flow, input, key, inventory, Optional.empty(), queue);
  }

  private Worker.ClaimedHere admit(
      LoadedFlow flow,
      JsonNode input,
      Optional<String> key,
      Inventory inventory,
      Optional<RunRef> rerunOf,
      Optional<String> queue) {
    flow.compiled().ifPresentOrElse(resolver::registerSource, () -> resolver.register(flow.flow()));
    FlowHeader header = flow.flow().header();
    RunSpec spec =
        Lowering.root(
            header,
            flow.origin(),
            input,
            inventory,
            header.budget().map(Budgets::limit),
            models.prices(),
            config);
    StartRun request =
        request(
            flow.flow().header().name(),
            spec,
            key,
            rerunOf,
            queue.orElse(flow.flow().header().queue()));
    Worker.ClaimedHere admitted =
        worker
            .startClaimed(request, key.isEmpty() ? config.memoDelay() : Duration.ZERO)
            .orElseGet(
                () ->
                    new Worker.ClaimedHere(
                        journal.admit(request, Admit.queued()), Optional.empty()));
    if (admitted.started().created()) {
      dev.flows.worker.telemetry.FlowsTelemetry.metrics().runStarted(spec.name());
    }
    return admitted;
  }

  /**
   * The admission of a root run of flow {@code name}: keyed {@code flow:<name>:<key>} (the same key
   * finds the same run), else a new run each time.
   */
  private static StartRun request(
      String name, RunSpec spec, Optional<String> key, Optional<RunRef> rerunOf, String queue) {
    String admission =
        key.map(k -> "flow:" + name + ":" + k).orElseGet(() -> "flow:" + UUID.randomUUID());
    return new StartRun(
        Optional.empty(), admission, spec, Optional.empty(), "flow:" + name, rerunOf, queue);
  }

  /**
   * Admits a root run of a flow this engine need not host, as {@code like} (the body of a run of it
   * in the journal) was admitted: the same origin, version and route, so a worker hosting the flow
   * claims it, and the same frozen servers; with {@code input}, on {@code queue}.
   */
  public StartedRun admitLike(
      FlowBodyInstruction like, JsonNode input, Optional<String> key, String queue) {
    dev.flows.kernel.journal.Queues.require(queue);
    FlowHeader header = FlowHeader.named(like.flow()).version(like.version()).build();
    RunSpec spec =
        Lowering.root(
            header,
            like.origin(),
            input,
            new Inventory(like.inventory()),
            like.budget(),
            like.prices(),
            config);
    StartedRun started =
        journal.admit(request(like.flow(), spec, key, Optional.empty(), queue), Admit.queued());
    if (started.created()) {
      dev.flows.worker.telemetry.FlowsTelemetry.metrics().runStarted(spec.name());
    }
    return started;
  }

  /** Registers a class-path flow so this engine's worker can run (and replay) it. */
  public FlowsEngine register(dev.flows.sdk.Flow flow) {
    resolver.register(flow);
    return this;
  }

  /**
   * Registers every flow class on the class path that declares itself in {@code
   * META-INF/services/dev.flows.sdk.Flow}, so this worker can claim and replay their runs.
   */
  public FlowsEngine registerServiceLoaded() {
    java.util.ServiceLoader.load(dev.flows.sdk.Flow.class).forEach(resolver::register);
    return this;
  }

  /**
   * Starts the worker and the schedule ticker, after applying the schedule each registered flow's
   * header declares ({@link ScheduleTemplates#applyHeaders}).
   */
  public void startWorker() {
    templates.applyHeaders(journal, "worker:" + workerName);
    worker.start();
    ticker.start();
  }

  /** Cancels a run and every open run under it. */
  public void cancelTree(RunRef run, String reason) {
    for (RunRef child : journal.children(run)) {
      cancelTree(child, reason);
    }
    journal.cancelRun(run, reason);
  }

  @Override
  public void close() {
    ticker.close();
    worker.close();
    // Calls whose bodies suspended are not the worker's attempts: stop them the same way.
    inline.close(
        workerConfig.stopGrace(),
        workerConfig.killGrace().plus(workerConfig.stopCompletionTimeout()));
    sessions.close();
  }
}
