package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.NotFoundException;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.RunId;
import dev.flows.sdk.runtime.PublicError;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A root run started (or found) by {@link Flows}: its id, its status, and its result once it ends.
 * A handle is only an id and a way to read the journal: any number of them, in any process, may
 * wait for the same run ({@link Flows#handle}).
 *
 * <p>Waiting reads the run, then sleeps on the journal's watch of the run ({@code
 * Journal.watchRun}): it wakes at once when this process ended the run (its worker ran it), and by
 * NOTIFY when another process did. Between wake-ups it looks again after a pause that starts at
 * {@link #FIRST_PAUSE} and doubles up to {@link #LONGEST_PAUSE}, a fallback for a lost
 * notification.
 *
 * <p>A handle whose run this process's worker took at admission ({@link Flows#start} with a free
 * worker slot) waits for that attempt's end instead: when it ends the run in success, the worker
 * hands the output over and nothing is read. Any other end (failed, parked, canceled, another
 * attempt needed) is read from the journal as above; while it waits, the handle looks at the run
 * every {@link #LONGEST_PAUSE}, so a run ended elsewhere (canceled) is seen.
 */
public final class RunHandle<T> {
  private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
      dev.flows.kernel.json.Jackson.mapper();

  /**
   * The first pause between two looks at a run that has not ended, when nothing woke the waiter.
   */
  public static final Duration FIRST_PAUSE = Duration.ofMillis(50);

  /** The longest such pause. */
  public static final Duration LONGEST_PAUSE = Duration.ofSeconds(1);

  private final Flows flows;
  private final RunRef runId;
  private final boolean created;
  private final Function<JsonNode, T> convert;
  private final Optional<CompletableFuture<Optional<JsonNode>>> endHere;

  RunHandle(
      Flows flows,
      RunRef runId,
      boolean created,
      Function<JsonNode, T> convert,
      Optional<CompletableFuture<Optional<JsonNode>>> endHere) {
    this.flows = flows;
    this.runId = runId;
    this.created = created;
    this.convert = convert;
    this.endHere = endHere;
  }

  public RunId runId() {
    return Boundary.id(runId);
  }

  /**
   * Whether the start that made this handle created the run; false when the key had started it
   * already (or the handle was re-attached by id).
   */
  public boolean created() {
    return created;
  }

  /** The run as the journal sees it now. */
  public RunInfo snapshot() {
    return PublicError.guard(() -> Boundary.info(read()));
  }

  private RunSnapshot read() {
    return flows
        .journal()
        .run(runId)
        .orElseThrow(
            () ->
                new NotFoundException(
                    ErrorCode.RUN_NOT_FOUND, "no run with id " + runId.value(), runId.value()));
  }

  public RunState state() {
    return snapshot().state();
  }

  /**
   * Waits up to {@code timeout} for the run to end, and answers the body's output.
   *
   * @throws RunFailedException the run failed (code: the failed step's diagnostic)
   * @throws RunParkedException the run is parked until an operator decides (at once, not at the end
   *     of the timeout: a parked run does not move by itself)
   * @throws RunCanceledException the run was canceled
   * @throws ResultTimeoutException the run was still running when the timeout passed
   */
  public T result(Duration timeout) throws InterruptedException {
    try {
      return awaitResult(timeout);
    } catch (FlowsException e) {
      throw PublicError.of(e);
    }
  }

  private T awaitResult(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    if (endHere.isPresent()) {
      Optional<JsonNode> output = endedHere(endHere.get(), deadline);
      if (output.isPresent()) {
        return convert.apply(output.get());
      }
    }
    Duration pause = FIRST_PAUSE;
    // Opened before the first read, so a change between the read and the wait still wakes it.
    try (RunWatch watch = flows.journal().watchRun(runId)) {
      while (true) {
        RunSnapshot run = read();
        if (run.status() == RunStatus.SUCCEEDED) {
          return convert.apply(RunOutcomes.output(run));
        }
        if (run.status() != RunStatus.RUNNING) {
          throw flows.ended(run);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new ResultTimeoutException(runId, timeout);
        }
        Duration wait = Duration.ofNanos(Math.min(left, pause.toNanos()));
        if (!watch.await(wait)) {
          Duration doubled = pause.multipliedBy(2);
          pause = doubled.compareTo(LONGEST_PAUSE) > 0 ? LONGEST_PAUSE : doubled;
        }
      }
    }
  }

  /**
   * Waits for the end of the attempt this process's worker runs: the run's output when it ended the
   * run in success; empty when it ended otherwise, when the journal shows the run ended (a look
   * every {@link #LONGEST_PAUSE}), or at the deadline.
   */
  private Optional<JsonNode> endedHere(CompletableFuture<Optional<JsonNode>> end, long deadline)
      throws InterruptedException {
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      try {
        return end.get(Math.min(left, LONGEST_PAUSE.toNanos()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        if (read().status() != RunStatus.RUNNING) {
          return Optional.empty();
        }
      } catch (ExecutionException e) {
        return Optional.empty();
      }
    }
  }

  /**
   * The run's progress as it happens, for any process on the journal: the text its running model
   * turns have streamed so far, then the run settling (see {@link RunProgress}).
   */
  public RunProgress progress() {
    return new RunProgress(flows, runId);
  }

  /**
   * Cancels the run and every open run under it; {@code result} then throws {@link
   * RunCanceledException}. A run that already ended stays as it is.
   */
  public void cancel(String reason) {
    PublicError.guard(() -> flows.cancel(runId, reason));
  }

  /**
   * Sends signal {@code name} to the run: a body waiting in {@code f.awaitSignal(name, ...)} gets
   * {@code payload} (anything Jackson turns into JSON; null is JSON null) at once, a later wait
   * gets it then (kept in order, each delivered once). Refused {@code run_terminal} once the run
   * ended.
   */
  public SignalReceipt signal(String name, @Nullable Object payload) {
    return signal(name, payload, Optional.empty());
  }

  /** As {@link #signal(String, Object)}; a second send with the same {@code key} sends nothing. */
  public SignalReceipt signal(String name, @Nullable Object payload, Optional<String> key) {
    JsonNode json = MAPPER.valueToTree(payload);
    JsonNode sent =
        json == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : json;
    return PublicError.guard(
        () -> Boundary.receipt(flows.journal().sendSignal(runId, name, sent, key)));
  }

  @Override
  public String toString() {
    return "RunHandle[" + runId.value() + "]";
  }
}
