package dev.flows.worker.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.DiagnosticTails;
import dev.flows.worker.StepExecution;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.WorkerDiagnostic;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a deterministic step's command as a subprocess in its own process group ({@code setsid}, so
 * the group id is the child's pid). Argv is executed as given; only the single-string form goes
 * through {@code /bin/sh -c}. On timeout or cancel the whole group gets SIGTERM, then SIGKILL after
 * {@link WorkerConfig#killGrace()}; when the command exits by itself, whatever it left running in
 * its group is terminated the same way. Output shapes are documented in SURFACE.md (Worker).
 */
public final class DeterministicExecutor implements StepExecutor {
  static final String SETSID = "setsid";
  static final String SHELL = "/bin/sh";
  private static final File DEV_NULL = new File("/dev/null");
  private static final ObjectMapper JSON =
      Jackson.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private final WorkerConfig config;

  public DeterministicExecutor(WorkerConfig config) {
    this.config = config;
  }

  @Override
  public StepKind kind() {
    return StepKind.DETERMINISTIC;
  }

  @Override
  public StepOutcome execute(StepExecution execution) {
    ClaimedAttempt attempt = execution.attempt();
    StepBody.Deterministic body = (StepBody.Deterministic) attempt.step().body();
    Duration timeout =
        attempt.step().timeoutMs().isPresent()
            ? Duration.ofMillis(attempt.step().timeoutMs().getAsLong())
            : config.defaultStepTimeout();
    if (body.cwd().isPresent() && !new File(body.cwd().get()).isDirectory()) {
      // Another worker may have the directory, this one never will: fail, do not retry here.
      ObjectNode tail =
          DiagnosticTails.of(
              WorkerDiagnostic.CWD_NOT_FOUND,
              "the command's working directory "
                  + body.cwd().get()
                  + " does not exist on this worker; run the worker where the flow file's"
                  + " directory is");
      tail.put("cwd", body.cwd().get());
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail, false);
    }
    Process process;
    try {
      process = start(commandLine(body), body, attempt);
    } catch (IOException e) {
      return new StepOutcome.Failed(
          CompletionReason.WORKER_ERROR,
          DiagnosticTails.of(WorkerDiagnostic.SPAWN_FAILED, String.valueOf(e.getMessage())),
          true);
    }
    return supervise(process, timeout, execution.token());
  }

  static List<String> commandLine(StepBody.Deterministic body) {
    List<String> cmd = new ArrayList<>();
    cmd.add(SETSID);
    if (body.shell()) {
      cmd.add(SHELL);
      cmd.add("-c");
      cmd.add(body.argv().get(0));
    } else {
      cmd.addAll(body.argv());
    }
    return cmd;
  }

  private static Process start(
      List<String> cmd, StepBody.Deterministic body, ClaimedAttempt attempt) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(Redirect.from(DEV_NULL));
    body.cwd().ifPresent(dir -> pb.directory(new File(dir)));
    Map<String, String> env = pb.environment();
    env.put("FLOWS_RUN_ID", attempt.lease().runId().value());
    env.put("FLOWS_STEP_ID", attempt.lease().stepId());
    env.put("FLOWS_ATTEMPT", Integer.toString(attempt.lease().attempt()));
    env.put("FLOWS_IDEMPOTENCY_KEY", attempt.idempotencyKey());
    env.put("FLOWS_STEP_INPUT", attempt.step().input().toString());
    return pb.start();
  }

  private enum Ending {
    EXITED,
    TIMED_OUT,
    CANCELED
  }

  private StepOutcome supervise(Process process, Duration timeout, CancellationToken token) {
    // setsid makes the child a session and group leader without forking (the JVM's child is never
    // a group leader), so the group id is the pid we were given.
    long pgid = process.pid();
    int half = config.tailCapBytes() / 2;
    OutputTail stdout = new OutputTail(half);
    OutputTail stderr = new OutputTail(config.tailCapBytes() - half);
    Thread outReader = Thread.ofVirtual().start(() -> stdout.drain(process.getInputStream()));
    Thread errReader = Thread.ofVirtual().start(() -> stderr.drain(process.getErrorStream()));
    CompletableFuture<Void> canceled = new CompletableFuture<>();
    token.onCancel(() -> canceled.complete(null));

    Ending ending = awaitEnding(process, timeout, canceled);
    terminateGroup(pgid, List.of(outReader, errReader));
    // The leader was killed with the group (or had exited); its status is available now.
    int exitCode = waitUninterruptibly(process);

    ObjectNode streams = DiagnosticTails.of(WorkerDiagnostic.EXIT_NONZERO, "");
    streams.put("exitCode", exitCode);
    streams.put("pgid", pgid);
    streams.put("stdout", stdout.text());
    streams.put("stderr", stderr.text());
    streams.put("stdoutTruncated", stdout.truncated());
    streams.put("stderrTruncated", stderr.truncated());
    return switch (ending) {
      case CANCELED -> {
        streams.put("message", "canceled; process group " + pgid + " terminated");
        yield DiagnosticTails.canceled(token, streams);
      }
      case TIMED_OUT -> {
        streams.put("diagnostic", WorkerDiagnostic.TIMEOUT.wire());
        streams.put("message", "timed out after " + timeout.toMillis() + " ms");
        yield new StepOutcome.Failed(CompletionReason.TIMEOUT, streams, true);
      }
      case EXITED -> {
        if (exitCode == 0) {
          yield new StepOutcome.Succeeded(successOutput(streams, stdout));
        }
        streams.put("message", "exited with status " + exitCode);
        yield new StepOutcome.Failed(CompletionReason.WORKER_ERROR, streams, true);
      }
    };
  }

  /**
   * Waits for the command to exit, its timeout, or a cancel. An interrupt of the attempt's thread
   * counts as a cancel (the lease wrapper interrupts at the local deadline).
   */
  private static Ending awaitEnding(
      Process process, Duration timeout, CompletableFuture<Void> canceled) {
    CompletableFuture<Object> first = CompletableFuture.anyOf(process.onExit(), canceled);
    try {
      first.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return canceled.isDone() ? Ending.CANCELED : Ending.EXITED;
    } catch (TimeoutException e) {
      return Ending.TIMED_OUT;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Ending.CANCELED;
    } catch (ExecutionException e) {
      throw new IllegalStateException("waiting on a process cannot fail", e);
    }
  }

  /**
   * SIGTERM the group, give it the kill grace to go away (the pipes reach end of stream when every
   * process holding them has exited), then SIGKILL whatever is left.
   */
  private void terminateGroup(long pgid, List<Thread> readers) {
    ProcessGroups.signal(pgid, "TERM");
    boolean interrupted = Thread.interrupted();
    long deadline = System.nanoTime() + config.killGrace().toNanos();
    for (Thread reader : readers) {
      long left = deadline - System.nanoTime();
      while (left > 0 && reader.isAlive()) {
        try {
          reader.join(Duration.ofNanos(left));
        } catch (InterruptedException e) {
          interrupted = true;
        }
        left = deadline - System.nanoTime();
      }
    }
    ProcessGroups.signal(pgid, "KILL");
    for (Thread reader : readers) {
      joinUninterruptibly(reader);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void joinUninterruptibly(Thread t) {
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static int waitUninterruptibly(Process process) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return process.waitFor();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * {@code {exitCode, stdout, stderr, stdoutTruncated, stderrTruncated}}, plus {@code json}: the
   * parsed stdout when all of it was kept and it is one JSON value, so a later step can use a
   * command's structured result without reparsing.
   */
  private static ObjectNode successOutput(ObjectNode streams, OutputTail stdout) {
    ObjectNode out = streams.deepCopy();
    out.remove(List.of("diagnostic", "message", "pgid"));
    if (!stdout.truncated() && !stdout.text().isBlank()) {
      try {
        JsonNode parsed = JSON.readTree(stdout.text());
        if (parsed != null && !parsed.isMissingNode()) {
          out.set("json", parsed);
        }
      } catch (JsonProcessingException e) {
        // Not JSON: the text alone is the result.
      }
    }
    return out;
  }
}
