package dev.flows.embed;

import dev.flows.embed.internal.EmbedInternals;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.config.ServerEntry;
import dev.flows.sdk.runtime.ClientModelPort;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.PreflightException;
import dev.flows.sdk.runtime.PublicError;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Options of a {@link Flows}, each with a default (SURFACE.md, "Embedding API"). Only the database
 * is required. {@link #build} refuses with one {@link FlowsError} per problem kind: no or two
 * databases, two servers or flows of one name ({@code config_invalid}), a flow declaring a server
 * no one gave ({@code mcp_undeclared_server}, every one at once), an unreachable database ({@code
 * database_unavailable}), a schema behind this build without {@link #migrate} ({@code
 * migration_pending}).
 */
public final class FlowsBuilder {
  /** Connections of an admission-only client: starts, reads and waits need few. */
  public static final int ADMISSION_POOL_SIZE = 4;

  /** Connections beyond the worker's capacity: its claim and reconcile loops, and the caller. */
  public static final int POOL_HEADROOM = 4;

  private static final String PLACE = "Flows.builder()";

  private Optional<Storage.Target> database = Optional.empty();
  private final List<Flow<?, ?>> flows = new ArrayList<>();
  private final Map<String, ServerEntry> servers = new LinkedHashMap<>();
  private final Map<String, ModelClient> models = new LinkedHashMap<>();
  private final Map<String, Model> declaredModels = new LinkedHashMap<>();
  private Optional<Path> flowsJson = Optional.empty();
  private Optional<WorkerConfig> worker = Optional.empty();
  private Set<String> queues = Set.of();
  private boolean startWorkerLater;
  private boolean migrate;
  private SdkConfig sdk = SdkConfig.DEFAULTS;
  private McpClientConfig mcpClient = McpClientConfig.DEFAULTS;
  private Optional<McpCredentials> credentials = Optional.empty();
  private OptionalInt poolSize = OptionalInt.empty();
  private Optional<PayloadLimitOptions> journalLimits = Optional.empty();
  private Optional<PayloadLimitOptions> workerJournalLimits = Optional.empty();

  FlowsBuilder() {}

  /** The caller's pool: used, never closed; its LISTEN connection is taken from it too. */
  public FlowsBuilder dataSource(DataSource dataSource) {
    return database(new Storage.Target.GivenPool(dataSource));
  }

  /** A Postgres URL (credentials in it, or none needed); {@link Flows} opens and closes a pool. */
  public FlowsBuilder jdbcUrl(String jdbcUrl) {
    return database(new Storage.Target.Url(jdbcUrl, Optional.empty(), Optional.empty()));
  }

  public FlowsBuilder jdbcUrl(String jdbcUrl, String user, String password) {
    return database(new Storage.Target.Url(jdbcUrl, Optional.of(user), Optional.of(password)));
  }

  private FlowsBuilder database(Storage.Target target) {
    if (database.isPresent()) {
      throw refusal("a database was given twice", "give one of .dataSource(...) or .jdbcUrl(...)");
    }
    database = Optional.of(target);
    return this;
  }

  /**
   * A flow this instance starts and (with a worker) runs: this very instance, for every run of its
   * name at its version.
   */
  public FlowsBuilder register(Flow<?, ?> flow) {
    flows.add(flow);
    return this;
  }

  /**
   * As {@link #register(Flow)}, each: versions of one flow name (their header versions differ) are
   * served side by side, a run replaying on the version it started with, a start by name taking the
   * newest; two of one name and version are refused {@code config_invalid}.
   */
  public FlowsBuilder register(Flow<?, ?> flow, Flow<?, ?>... more) {
    flows.add(flow);
    flows.addAll(java.util.List.of(more));
    return this;
  }

  /**
   * An MCP server given in code ({@link McpServer#stdio}, {@link McpServer#http}); two of one name
   * are refused {@code config_invalid}.
   */
  public FlowsBuilder mcpServer(McpServer server) {
    ServerEntry entry = new ServerEntry(server.config(), server.honoursIdempotencyKeys());
    if (servers.putIfAbsent(server.name(), entry) != null) {
      throw refusal(
          "two MCP servers named " + server.name(), "give each server once, with its own name");
    }
    return this;
  }

  /**
   * A model given in code under {@code name}, for flows whose header declares it ({@code
   * .models(name)}): {@code f.llm(name)} and {@code llm} steps call it. Two of one name, or one
   * flows.json also declares, are refused {@code config_invalid}.
   */
  public FlowsBuilder model(String name, ModelClient model) {
    if (declaredModels.containsKey(name) || models.putIfAbsent(name, model) != null) {
      throw refusal("two models named " + name, "give each model once, with its own name");
    }
    return this;
  }

  /**
   * A model declared in code ({@link Model#of}), served through LangChain4j as a flows.json {@code
   * models} entry is. Its name given twice (here, by {@link #model(String, ModelClient)}, or in
   * flows.json) is refused {@code config_invalid}.
   */
  public FlowsBuilder model(Model model) {
    if (models.containsKey(model.name())
        || declaredModels.putIfAbsent(model.name(), model) != null) {
      throw refusal("two models named " + model.name(), "give each model once, with its own name");
    }
    return this;
  }

  /**
   * Also read the servers of a {@code flows.json}: this file, or the nearest one walking up from
   * this directory. Without it no file is read; servers come only from {@link #mcpServer}.
   */
  public FlowsBuilder flowsJson(Path fileOrDirectory) {
    flowsJson = Optional.of(fileOrDirectory);
    return this;
  }

  /** Runs a worker in this process with the worker's defaults. */
  public FlowsBuilder worker() {
    return worker(w -> {});
  }

  /**
   * Runs a worker in this process, configured from the defaults by {@code options} (e.g. {@code w
   * -> w.capacity(16)}). Without a worker, this instance only starts runs and waits for them.
   */
  public FlowsBuilder worker(Consumer<WorkerOptions> options) {
    WorkerConfig.Builder b = WorkerConfig.defaults().toBuilder();
    WorkerOptions o = new WorkerOptions(b);
    PublicError.guard(() -> options.accept(o));
    worker = Optional.of(PublicError.guard(b::build));
    queues = o.queues();
    startWorkerLater = o.startsLater();
    workerJournalLimits = o.journalLimits();
    return this;
  }

  /**
   * The journal's own payload limits (e.g. {@code l -> l.maxRunInputBytes(1 << 20)}), held for
   * every start, signal and answer through this instance, with or without a worker; each over
   * flows.json's {@code limits} (when {@link #flowsJson} is given), else the default. Giving them
   * here and in {@link #worker(Consumer)}'s options too is refused {@code config_invalid} at {@link
   * #build}.
   */
  public FlowsBuilder payloadLimits(Consumer<PayloadLimitOptions> options) {
    PayloadLimitOptions o = new PayloadLimitOptions();
    PublicError.guard(() -> options.accept(o));
    journalLimits = Optional.of(o);
    return this;
  }

  /** Applies pending migrations at {@link #build}; without it a schema behind is refused. */
  public FlowsBuilder migrate(boolean migrate) {
    this.migrate = migrate;
    return this;
  }

  /** The engine's settings; internal: the public options are this builder's methods. */
  FlowsBuilder sdkConfig(SdkConfig config) {
    this.sdk = config;
    return this;
  }

  /** The MCP client's settings; internal, as {@link #sdkConfig}. */
  FlowsBuilder mcpClient(McpClientConfig config) {
    this.mcpClient = config;
    return this;
  }

  /**
   * Where the secrets that MCP servers' auth names ({@code "env:NAME"} in flows.json) and models'
   * API keys ({@code apiKeyEnv}, {@link Model#apiKeySecret}) are read: the value of {@code NAME},
   * or null when it is not set; default: this process's environment.
   */
  public FlowsBuilder secrets(Function<String, @Nullable String> lookup) {
    this.credentials = Optional.of(new McpCredentials(lookup::apply, Map.of(), Map.of(), Map.of()));
    return this;
  }

  /** Connections of the pool a {@link #jdbcUrl} opens (default: see SURFACE.md). */
  public FlowsBuilder poolSize(int size) {
    this.poolSize = OptionalInt.of(size);
    return this;
  }

  /**
   * Checks the options, the flows against the servers (the pure preflight pass: no network), and
   * the database schema; starts the worker when one was asked for.
   */
  public Flows build() {
    return PublicError.guard(this::built);
  }

  private Flows built() {
    Storage.Target target =
        database.orElseThrow(
            () -> refusal("no database was given", "call .dataSource(ds) or .jdbcUrl(url)"));
    FlowsConfig config = servers();
    FlowCatalog catalog = new FlowCatalog(flows);
    List<FlowsException> problems = catalog.pureProblems(config, models.keySet());
    if (!problems.isEmpty()) {
      throw new PreflightException(problems);
    }
    PayloadLimits limits = limits(config.limits());
    WorkerConfig workerConfig =
        worker.orElseGet(WorkerConfig::defaults).toBuilder().payloadLimits(limits).build();
    int pool =
        poolSize.orElse(
            worker.isPresent() ? workerConfig.capacity() + POOL_HEADROOM : ADMISSION_POOL_SIZE);
    Storage storage = Storage.open(target, pool, migrate, limits);
    return assemble(storage, catalog, config, workerConfig, InstantSource.system());
  }

  /**
   * The limits of this instance's journal and worker: flows.json's ({@code file}, the defaults
   * without one), with those given in code over them, from one place only.
   */
  private PayloadLimits limits(PayloadLimits file) {
    if (journalLimits.isPresent() && workerJournalLimits.isPresent()) {
      throw refusal(
          "the journal's payload limits were given twice: in .payloadLimits(...) and in"
              + " .worker(w -> w.max...Bytes(...))",
          "give them once, in .payloadLimits(...): it holds with or without a worker");
    }
    return journalLimits.or(() -> workerJournalLimits).map(o -> o.over(file)).orElse(file);
  }

  static {
    EmbedInternals.install(FlowsBuilder::onJournal);
  }

  /**
   * On a journal its maker keeps (the test kit's, reading time from {@code clock}): no database
   * option, no worker (the kit runs its own), the same checks of flows against servers.
   */
  private static Flows onJournal(
      FlowsBuilder b, Journal journal, Optional<DataSource> listing, InstantSource clock) {
    if (b.database.isPresent() || b.worker.isPresent() || b.journalLimits.isPresent()) {
      throw refusal(
          "a database, a worker or payload limits were given to a Flows on a given journal",
          "let the test kit choose the journal and run the workers");
    }
    FlowsConfig config = b.servers();
    FlowCatalog catalog = new FlowCatalog(b.flows);
    List<FlowsException> problems = catalog.pureProblems(config, b.models.keySet());
    if (!problems.isEmpty()) {
      throw new PreflightException(problems);
    }
    return b.assemble(
        Storage.given(journal, listing), catalog, config, WorkerConfig.defaults(), clock);
  }

  private Flows assemble(
      Storage storage,
      FlowCatalog catalog,
      FlowsConfig config,
      WorkerConfig workerConfig,
      InstantSource clock) {
    try {
      FlowsEngine engine =
          new FlowsEngine(
              storage.journal(),
              workerConfig,
              sdk,
              mcpClient,
              credentials.orElseGet(McpCredentials::fromEnvironment),
              clock);
      catalog.all().forEach(r -> engine.register(r.flow()));
      models.forEach((name, m) -> engine.models().register(name, new ClientModelPort(name, m)));
      config.models().values().forEach(engine.models()::declare);
      if (!queues.isEmpty()) {
        engine.serveQueues(queues);
      }
      if (worker.isPresent()) {
        // Its row in flows.workers says which versions this service serves (Flows.versions).
        storage
            .dataSource()
            .ifPresent(ds -> engine.worker().announceTo(new PostgresWorkerRoster(ds)));
      }
      PayloadLimits limits = workerConfig.payloadLimits();
      Flows built =
          new Flows(
              storage,
              engine,
              catalog,
              config,
              worker.isPresent(),
              new JournalLimits(
                  limits.maxRunInputBytes(), limits.maxSignalBytes(), limits.maxAnswerBytes()));
      if (worker.isPresent() && !startWorkerLater) {
        built.startWorker();
      }
      return built;
    } catch (RuntimeException e) {
      storage.close();
      throw e;
    }
  }

  /** flows.json's servers (when asked for) and the servers given in code, refusing a clash. */
  private FlowsConfig servers() {
    Optional<Path> file = Optional.empty();
    Map<String, ServerEntry> all = new LinkedHashMap<>();
    Map<String, dev.flows.kernel.llm.ModelConfig> declared = new LinkedHashMap<>();
    PayloadLimits fileLimits = PayloadLimits.DEFAULTS;
    if (flowsJson.isPresent()) {
      Path given = flowsJson.get();
      Path found =
          Files.isDirectory(given)
              ? FlowsConfigLoader.find(given)
                  .orElseThrow(
                      () ->
                          refusal(
                              "no " + FlowsConfigLoader.FILE_NAME + " at or above " + given,
                              "point .flowsJson(...) at the file, or give servers with"
                                  + " .mcpServer(...)"))
              : given;
      FlowsConfig loaded = FlowsConfigLoader.load(found);
      file = loaded.file();
      all.putAll(loaded.mcp());
      declared.putAll(loaded.models());
      fileLimits = loaded.limits();
    }
    for (Model m : declaredModels.values()) {
      if (declared.putIfAbsent(m.name(), m.config()) != null) {
        throw refusal(
            "model " + m.name() + " is given in code and in " + file.orElseThrow(),
            "give it in one place");
      }
    }
    for (String name : models.keySet()) {
      if (declared.containsKey(name)) {
        throw refusal(
            "model " + name + " is given in code and in " + file.orElseThrow(),
            "give it in one place");
      }
    }
    for (ServerEntry s : servers.values()) {
      if (all.putIfAbsent(s.name(), s) != null) {
        throw refusal(
            "MCP server " + s.name() + " is given in code and in " + file.orElseThrow(),
            "give it in one place");
      }
    }
    return new FlowsConfig(file, all, declared, Optional.empty(), fileLimits);
  }

  private static FlowsError refusal(String message, String fix) {
    return PublicError.of(new FlowsException(ErrorCode.CONFIG_INVALID, message, PLACE, fix));
  }
}
