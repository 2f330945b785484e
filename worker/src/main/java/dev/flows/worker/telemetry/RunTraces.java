package dev.flows.worker.telemetry;

import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The spans of runs and attempts. Their ids are derived from the journal, never remembered by a
 * process: a run's trace id is a hash of its root run's id, a run's span id a hash of its run id,
 * an attempt's span id a hash of its place ({@code run/step#attempt}). So the attempts of one run
 * join one trace whichever workers took them, after any crash, and the span of an attempt whose
 * worker died (emitted by the reconciler that expired it) has the id its children saw.
 *
 * <p>The API cannot choose a new span's ids: the ids wanted are pinned on the calling thread while
 * the span starts, and the SDK's id generator installed by {@code flows} (ops) answers them (see
 * {@link #pinned()}). Without it the ids are random and the spans still carry every attribute.
 */
public final class RunTraces {
  public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("flows.run.id");
  public static final AttributeKey<String> STEP_ID = AttributeKey.stringKey("flows.step.id");
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("flows.attempt");
  public static final AttributeKey<String> WORKER_ID = AttributeKey.stringKey("flows.worker.id");
  public static final AttributeKey<String> LEASE_ID = AttributeKey.stringKey("flows.lease.id");
  public static final AttributeKey<String> REASON =
      AttributeKey.stringKey("flows.completion.reason");
  public static final AttributeKey<String> DISPOSITION =
      AttributeKey.stringKey("flows.disposition");
  public static final AttributeKey<String> LEASE_LOST = AttributeKey.stringKey("flows.lease.lost");
  public static final AttributeKey<String> RUN_STATUS = AttributeKey.stringKey("flows.run.status");

  /** Ids a span starting on this thread should get: a trace id only for a root span. */
  public record Pinned(Optional<String> traceId, String spanId) {}

  private static final ThreadLocal<Pinned> PINNED = new ThreadLocal<>();

  /** A run's root never changes: remembered for the runs this process saw lately. */
  private static final int ROOTS_KEPT = 10_000;

  private static final Map<RunRef, RunRef> ROOTS =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<RunRef, RunRef> e) {
          return size() > ROOTS_KEPT;
        }
      };

  private RunTraces() {}

  /** The ids pinned for the span starting on this thread (read by flows' SDK id generator). */
  public static Optional<Pinned> pinned() {
    return Optional.ofNullable(PINNED.get());
  }

  public static String traceId(RunRef root) {
    return hex(digest("flows.trace:" + root.value()), 16);
  }

  public static String runSpanId(RunRef run) {
    return hex(digest("flows.run:" + run.value()), 8);
  }

  public static String attemptSpanId(LeaseToken lease) {
    return hex(digest("flows.attempt:" + lease.place()), 8);
  }

  /** The run's span as a parent: valid whichever process emits the span itself. */
  static Context runContext(RunRef root, RunRef run) {
    return Context.root()
        .with(
            Span.wrap(
                SpanContext.createFromRemoteParent(
                    traceId(root),
                    runSpanId(run),
                    TraceFlags.getSampled(),
                    TraceState.getDefault())));
  }

  /**
   * Remembers that {@code run}'s root is {@code root}: a body admitting its children tells this, so
   * the trace of a call needs no journal read to find its root.
   */
  public static void rootKnown(RunRef run, RunRef root) {
    synchronized (ROOTS) {
      ROOTS.put(run, root);
    }
  }

  /** The root of {@code run} (whose parent is {@code parent}), read up the journal when unknown. */
  public static RunRef root(Journal journal, RunRef run, Optional<RunRef> parent) {
    if (parent.isEmpty()) {
      return run;
    }
    synchronized (ROOTS) {
      RunRef known = ROOTS.get(run);
      if (known != null) {
        return known;
      }
    }
    RunRef root = parent.get();
    RunRef at = root;
    // A child's tree is a few levels deep; the bound only stops a malformed journal.
    for (int depth = 0; depth < 64; depth++) {
      synchronized (ROOTS) {
        RunRef known = ROOTS.get(at);
        if (known != null) {
          root = known;
          break;
        }
      }
      Optional<RunRef> up = journal.run(at).flatMap(RunSnapshot::parentRunId);
      if (up.isEmpty()) {
        root = at;
        break;
      }
      at = up.get();
      root = at;
    }
    synchronized (ROOTS) {
      ROOTS.put(run, root);
      // Its siblings share the parent: the next one finds the root without a read.
      ROOTS.put(parent.get(), root);
    }
    return root;
  }

  private static Tracer tracer() {
    return FlowsTelemetry.otel().getTracer(FlowsTelemetry.SCOPE);
  }

  private static Span startPinned(SpanBuilder b, Pinned ids) {
    PINNED.set(ids);
    try {
      return b.startSpan();
    } finally {
      PINNED.remove();
    }
  }

  /** Starts the span of a claimed attempt ({@link AttemptSpan#NONE} when telemetry is off). */
  public static AttemptSpan startAttempt(Journal journal, ClaimedAttempt a, WorkerId worker) {
    if (!FlowsTelemetry.enabled()) {
      return AttemptSpan.NONE;
    }
    try {
      LeaseToken l = a.lease();
      RunRef root = root(journal, l.runId(), a.parentRunId());
      SpanBuilder b = attemptSpan(root, l).setAttribute(WORKER_ID, worker.value());
      return new AttemptSpan(startPinned(b, new Pinned(Optional.empty(), attemptSpanId(l))));
    } catch (RuntimeException e) {
      return AttemptSpan.NONE;
    }
  }

  private static SpanBuilder attemptSpan(RunRef root, LeaseToken l) {
    return tracer()
        .spanBuilder("step " + l.stepId())
        .setParent(runContext(root, l.runId()))
        .setAttribute(RUN_ID, l.runId().value())
        .setAttribute(STEP_ID, l.stepId())
        .setAttribute(ATTEMPT, (long) l.attempt())
        .setAttribute(LEASE_ID, l.leaseId());
  }

  /**
   * The span of an attempt whose worker died, emitted by the reconciler that expired its lease:
   * from the attempt's start (as journaled) to now, with the dead worker's id.
   */
  public static void expired(Journal journal, ExpiredAttempt e, Instant now) {
    if (!FlowsTelemetry.enabled()) {
      return;
    }
    try {
      LeaseToken l = e.lease();
      RunSnapshot run = journal.run(l.runId()).orElseThrow();
      RunRef root = root(journal, l.runId(), run.parentRunId());
      SpanBuilder b = attemptSpan(root, l).setAttribute(REASON, "lease_expired");
      b.setAttribute(DISPOSITION, e.disposition().wire());
      for (JournalRecord r : journal.entries(l.runId())) {
        if (r.entry() instanceof JournalEntry.StepAttemptStarted s
            && s.stepId().equals(l.stepId())
            && s.attempt() == l.attempt()) {
          b.setStartTimestamp(r.at()).setAttribute(WORKER_ID, s.workerId().value());
        }
      }
      Span s = startPinned(b, new Pinned(Optional.empty(), attemptSpanId(l)));
      s.setStatus(StatusCode.ERROR, "the attempt's lease expired");
      s.end(now);
    } catch (RuntimeException ignored) {
      // A span is never worth failing the reconciler.
    }
  }

  /** The span of a run that just ended, from its admission to its end, by whoever ended it. */
  public static void runEnded(Journal journal, RunSnapshot run, Instant now) {
    RunRef root = root(journal, run.runId(), run.parentRunId());
    SpanBuilder b =
        tracer()
            .spanBuilder("flow " + run.name())
            .setSpanKind(SpanKind.INTERNAL)
            .setStartTimestamp(run.createdAt())
            .setAttribute(RUN_ID, run.runId().value())
            .setAttribute(RUN_STATUS, run.status().wire())
            .setAttribute("flows.queue", run.queue());
    Pinned ids;
    if (run.parentRunId().isPresent()) {
      b.setParent(runContext(root, run.parentRunId().get()));
      ids = new Pinned(Optional.empty(), runSpanId(run.runId()));
    } else {
      b.setNoParent();
      ids = new Pinned(Optional.of(traceId(root)), runSpanId(run.runId()));
    }
    Span s = startPinned(b, ids);
    if (run.status() != RunStatus.SUCCEEDED) {
      s.setStatus(StatusCode.ERROR, "run " + run.status().wire());
    }
    s.end(run.completedAt().orElse(now));
  }

  private static byte[] digest(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The first {@code bytes} of {@code d} in hex; never all zeros (an invalid id). */
  private static String hex(byte[] d, int bytes) {
    byte[] out = java.util.Arrays.copyOf(d, bytes);
    boolean zero = true;
    for (byte x : out) {
      zero &= x == 0;
    }
    if (zero) {
      out[bytes - 1] = 1;
    }
    return HexFormat.of().formatHex(out);
  }
}
