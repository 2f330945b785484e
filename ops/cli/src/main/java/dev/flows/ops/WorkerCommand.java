package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.Pruner;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code flows worker}: a long-running worker; SIGTERM drains it. */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description =
        "Run a worker until SIGTERM: it serves flow bodies (the single-file flows under --flows"
            + " directories, and flow classes on its class path), MCP calls and commands of its"
            + " queues. SIGTERM stops claiming, lets running attempts finish within the stop"
            + " grace, and leaves no lease.")
final class WorkerCommand implements Callable<Integer> {
  @Option(
      names = "--flows",
      paramLabel = "DIR",
      description =
          "Run the NAME.flow.java files under DIR (recursively; repeatable). A run of any other"
              + " single-file flow waits for a worker that has it.")
  List<String> flows = new ArrayList<>();

  @Option(
      names = "--accept-journal-sources",
      description = "Run any single-file flow source found in the journal, whoever admitted it.")
  boolean acceptJournalSources;

  @Option(
      names = "--queue",
      paramLabel = "NAME",
      description = "Claim runs of this queue (repeatable; default: default).")
  List<String> queues = new ArrayList<>();

  @Option(
      names = "--capacity",
      paramLabel = "N",
      description = "Attempts at once (default 16; env FLOWS_WORKER_CAPACITY).")
  String capacity;

  @Option(
      names = "--lease",
      paramLabel = "DURATION",
      description =
          "Lease of a step without leaseMs (default 30s, at least 1s; env FLOWS_WORKER_LEASE).")
  String lease;

  @Option(
      names = "--poll",
      paramLabel = "DURATION",
      description =
          "Longest wait before claiming without a wake-up (default 250ms; env FLOWS_WORKER_POLL).")
  String poll;

  @Option(
      names = "--reconcile",
      paramLabel = "DURATION",
      description =
          "Longest sleep between looks for expired leases (default 5s; env FLOWS_WORKER_RECONCILE).")
  String reconcile;

  @Option(
      names = "--stop-grace",
      paramLabel = "DURATION",
      description =
          "How long SIGTERM lets attempts finish (default 10s; env FLOWS_WORKER_STOP_GRACE).")
  String stopGrace;

  @Option(
      names = "--retention",
      paramLabel = "DURATION",
      description =
          "Prune ended runs older than this in the background, in small batches (e.g. 30d; off"
              + " unless given; env FLOWS_WORKER_RETENTION). `flows runs prune` does it by hand.")
  String retention;

  @Option(
      names = "--max-result-bytes",
      paramLabel = "BYTES",
      description =
          "The largest answer an MCP server may send; past it the call fails payload_too_large"
              + " (default 4194304; a server's flows.json limits.maxResultBytes wins; env"
              + " FLOWS_WORKER_MAX_RESULT_BYTES).")
  String maxResultBytes;

  @Option(
      names = "--max-output-bytes",
      paramLabel = "BYTES",
      description =
          "The largest step output this worker journals (f.step values, command and body outputs,"
              + " MCP receipts); past it the step fails payload_too_large (default 4194304; env"
              + " FLOWS_WORKER_MAX_OUTPUT_BYTES).")
  String maxOutputBytes;

  @Option(
      names = "--max-receipt-bytes",
      paramLabel = "BYTES",
      description =
          "The largest MCP receipt this worker journals; past it the call fails payload_too_large"
              + " (default 4194304; a server's larger flows.json limits.maxResultBytes wins; env"
              + " FLOWS_WORKER_MAX_RECEIPT_BYTES).")
  String maxReceiptBytes;

  @Option(
      names = "--max-run-input-bytes",
      paramLabel = "BYTES",
      description =
          "The largest run input this worker's journal admits (a body's child runs); past it the"
              + " start is refused payload_too_large, nothing written (default 4194304; env"
              + " FLOWS_WORKER_MAX_RUN_INPUT_BYTES).")
  String maxRunInputBytes;

  @Option(
      names = "--max-signal-bytes",
      paramLabel = "BYTES",
      description =
          "The largest signal payload this worker's journal takes; past it the signal is refused"
              + " payload_too_large, nothing written (default 4194304; env"
              + " FLOWS_WORKER_MAX_SIGNAL_BYTES).")
  String maxSignalBytes;

  @Option(
      names = "--max-answer-bytes",
      paramLabel = "BYTES",
      description =
          "The largest input answer this worker's journal takes; past it the answer is refused"
              + " payload_too_large, the step stays parked (default 4194304; env"
              + " FLOWS_WORKER_MAX_ANSWER_BYTES).")
  String maxAnswerBytes;

  @Option(
      names = "--metrics-port",
      paramLabel = "PORT",
      description =
          "Serve the flows.* metrics in Prometheus text format at http://HOST:PORT/metrics (0: any"
              + " free port). Traces and OTLP export follow the standard OTEL_* variables.")
  Integer metricsPort;

  @Option(
      names = "--quiet",
      description =
          "Print only the worker's start and stop and the attempts that end in an error (by"
              + " default: a line per attempt taken and per attempt ended).")
  boolean quiet;

  private final Session s;

  WorkerCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() throws InterruptedException {
    WorkerConfig config =
        WorkerSettings.resolve(
                new WorkerSettings.Flags(capacity, lease, poll, reconcile, stopGrace), s.env())
            .toBuilder()
            .payloadLimits(
                WorkerSettings.journalLimits(
                    WorkerSettings.payloadLimits(
                        s.limits(), maxOutputBytes, maxReceiptBytes, s.env()),
                    maxRunInputBytes,
                    maxSignalBytes,
                    maxAnswerBytes,
                    s.env()))
            .build();
    Set<String> served = WorkerSettings.queues(queues);
    Optional<WorkerSettings.Retention> kept = WorkerSettings.retention(retention, s.env());
    List<Path> dirs = flowDirectories();
    FlowsEngine engine =
        EngineSupport.engine(
            s.journal(EngineSupport.poolFor(config.capacity()), config.payloadLimits()),
            config,
            WorkerSettings.mcpLimits(maxResultBytes, s.env()),
            McpCredentials.fromEnvironment());
    engine.acceptSourcesUnder(dirs).serveQueues(served);
    if (acceptJournalSources) {
      engine.acceptJournalSources();
      s.notice(
          "flows: this worker runs any flow source found in the journal"
              + " (--accept-journal-sources), not only those under --flows");
    }
    java.util.concurrent.atomic.AtomicReference<Pruner> pruner =
        new java.util.concurrent.atomic.AtomicReference<>();
    OpsTelemetry telemetry =
        OpsTelemetry.start(
            s.env(), Optional.ofNullable(metricsPort), s.readyDatabase().dataSource());
    try (WorkerStop stop = WorkerStop.install()) {
      try {
        engine.worker().observeAttempts(new WorkerLines(s, quiet));
        engine.worker().announceTo(new PostgresWorkerRoster(s.readyDatabase().dataSource()));
        engine.startWorker();
        kept.ifPresent(
            r ->
                pruner.set(
                    Pruner.start(
                        s.journal(), r.prunerConfig(), "worker:" + engine.worker().id().value())));
        announceReady(engine, config, served, dirs, kept, telemetry);
        stop.await();
      } catch (RuntimeException e) {
        // What it claimed before the failure is handed back, as at a signal.
        drain(config, engine, Optional.ofNullable(pruner.get()), telemetry);
        throw e;
      }
      return drain(config, engine, Optional.ofNullable(pruner.get()), telemetry);
    }
  }

  /** Stops claiming, hands back or finishes its attempts, and removes its row, within a bound. */
  private Integer drain(
      WorkerConfig config, FlowsEngine engine, Optional<Pruner> pruner, OpsTelemetry telemetry)
      throws InterruptedException {
    s.notice("flows: worker stopping (draining running attempts)…");
    Duration bound = WorkerStop.bound(config);
    long began = System.nanoTime();
    boolean drained =
        WorkerStop.drainWithin(
            bound,
            () -> {
              pruner.ifPresent(Pruner::close);
              engine.close();
              telemetry.close();
            });
    if (!drained) {
      s.notice(
          "flows: worker not drained within "
              + bound.toSeconds()
              + " s (does the database answer?); stopping anyway: the leases it still holds"
              + " expire by themselves and their attempts are retried");
      return Exit.FAILED;
    }
    s.notice(
        "flows: worker stopped (drained in "
            + Duration.ofNanos(System.nanoTime() - began).toMillis()
            + " ms)");
    return Exit.SUCCESS;
  }

  /** The {@code worker.ready} event: who serves what, and where its metrics are. */
  private void announceReady(
      FlowsEngine engine,
      WorkerConfig config,
      Set<String> served,
      List<Path> dirs,
      Optional<WorkerSettings.Retention> kept,
      OpsTelemetry telemetry) {
    ObjectNode ev = s.object();
    ev.put("type", "worker.ready")
        .put("worker", engine.worker().id().value())
        .put("capacity", config.capacity());
    ArrayNode q = ev.putArray("queues");
    served.forEach(q::add);
    ArrayNode f = ev.putArray("flows");
    dirs.forEach(d -> f.add(d.toString()));
    ev.put("acceptJournalSources", acceptJournalSources);
    kept.ifPresent(r -> ev.put("retention", r.written()));
    telemetry.metricsPort().ifPresent(p -> ev.put("metricsPort", p));
    s.event(
        ev,
        "worker "
            + engine.worker().id().value()
            + " ready (capacity "
            + config.capacity()
            + ", queues "
            + String.join(",", served)
            + ", flows "
            + (acceptJournalSources
                ? "from the journal"
                : dirs.isEmpty()
                    ? "none (give --flows DIR)"
                    : String.join(",", dirs.stream().map(Path::toString).toList()))
            + kept.map(r -> ", pruning runs ended over " + r.written() + " ago").orElse("")
            + telemetry.metricsPort().map(p -> ", metrics at :" + p + "/metrics").orElse("")
            + ")");
  }

  private List<Path> flowDirectories() {
    List<Path> out = new ArrayList<>();
    for (String d : flows) {
      Path p = Path.of(d).toAbsolutePath().normalize();
      if (!Files.isDirectory(p)) {
        throw new FlowsException(
            ErrorCode.CONFIG_INVALID,
            "no directory " + p,
            "--flows",
            "give a directory holding NAME.flow.java files, e.g. --flows flows-examples/flows");
      }
      out.add(p);
    }
    return out;
  }
}
