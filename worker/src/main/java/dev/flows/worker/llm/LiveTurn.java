package dev.flows.worker.llm;

import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One model turn's streamed text, published to {@link LiveText} as it grows: the first piece at
 * once, then at most one write per {@link LiveText#COALESCE_MILLIS} (never one per token), the
 * whole text so far each time; {@link #close} clears it once the turn's answer is journaled (or the
 * turn failed). Publishing is best-effort: a failed write stops this turn's publishing, never the
 * model call.
 */
public final class LiveTurn implements LlmCalls.Restartable, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(LiveTurn.class.getName());
  private static final long COALESCE_NANOS =
      TimeUnit.MILLISECONDS.toNanos(LiveText.COALESCE_MILLIS);
  private final LiveText live;
  private final RunRef runId;
  private final String stepId;
  private final LongSupplier nanoTime;
  private final StringBuilder text = new StringBuilder();
  private long lastWrite;
  private boolean written;
  private boolean broken;
  private boolean closed;

  public LiveTurn(LiveText live, RunRef runId, String stepId, LongSupplier nanoTime) {
    this.live = live;
    this.runId = runId;
    this.stepId = stepId;
    this.nanoTime = nanoTime;
  }

  public LiveTurn(LiveText live, RunRef runId, String stepId) {
    this(live, runId, stepId, System::nanoTime);
  }

  @Override
  public synchronized void delta(String piece) {
    text.append(piece);
    long now = nanoTime.getAsLong();
    if (closed || broken || (written && now - lastWrite < COALESCE_NANOS)) {
      return;
    }
    lastWrite = now;
    attempt(() -> live.publish(runId, stepId, text.toString()));
    written = true;
  }

  @Override
  public synchronized void restart() {
    text.setLength(0);
  }

  /** The text streamed so far. */
  public synchronized String text() {
    return text.toString();
  }

  @Override
  public synchronized void close() {
    // A stream cut off (the attempt interrupted) may still deliver pieces: they are not published.
    closed = true;
    if (written) {
      attempt(() -> live.clear(runId, stepId));
    }
  }

  private void attempt(Runnable write) {
    try {
      write.run();
    } catch (RuntimeException e) {
      broken = true;
      LOG.log(Level.FINE, "live text of " + runId + "/" + stepId + " not published", e);
    }
  }
}
