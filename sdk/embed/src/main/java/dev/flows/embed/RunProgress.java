package dev.flows.embed;

import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.RunId;
import dev.flows.sdk.runtime.PublicError;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The progress of one run ({@link RunHandle#progress}), read from the journal by any process: the
 * text each running model turn has streamed so far ({@link ProgressEvent.PartialText}, reported
 * when it changed) and, last, the run settling ({@link ProgressEvent.Settled}). Poll it ({@link
 * #poll}), follow it as a blocking {@link #stream} or {@link #forEach}. Not thread-safe: one reader
 * per progress.
 */
public final class RunProgress {
  /** How often {@link #stream()} and {@link #forEach(Consumer)} look, by default. */
  public static final Duration DEFAULT_EVERY = Duration.ofMillis(LiveText.COALESCE_MILLIS);

  private final Flows flows;
  private final RunRef runId;
  private final Map<String, String> reported = new HashMap<>();
  private boolean settled;

  RunProgress(Flows flows, RunRef runId) {
    this.flows = flows;
    this.runId = runId;
  }

  /**
   * What happened since the last poll: each running turn whose text changed, then {@link
   * ProgressEvent.Settled} once, when the run has ended or parked (nothing after it).
   */
  public List<ProgressEvent> poll() {
    return PublicError.guard(this::read);
  }

  private List<ProgressEvent> read() {
    List<ProgressEvent> events = new ArrayList<>();
    if (settled) {
      return events;
    }
    // The state first: a run read as settled has no turn left running after it.
    RunState state = Boundary.info(flows.journal().run(runId).orElseThrow()).state();
    RunId id = Boundary.id(runId);
    for (LiveText.Partial p : flows.journal().liveText().of(runId)) {
      if (!p.text().equals(reported.put(p.stepId(), p.text()))) {
        events.add(new ProgressEvent.PartialText(id, p.stepId(), p.text()));
      }
    }
    if (state != RunState.RUNNING) {
      settled = true;
      events.add(new ProgressEvent.Settled(id, state));
    }
    return events;
  }

  /** Whether {@link ProgressEvent.Settled} was reported. */
  public boolean settled() {
    return settled;
  }

  /**
   * The events until the run settles, polled every {@code every}; blocks between polls (an
   * interrupt ends the stream).
   */
  public Stream<ProgressEvent> stream(Duration every) {
    Iterator<ProgressEvent> it =
        new Iterator<>() {
          private final ArrayDeque<ProgressEvent> buffer = new ArrayDeque<>();

          @Override
          public boolean hasNext() {
            while (buffer.isEmpty() && !settled) {
              buffer.addAll(poll());
              if (buffer.isEmpty() && !pause(every)) {
                return false;
              }
            }
            return !buffer.isEmpty();
          }

          @Override
          public ProgressEvent next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return buffer.poll();
          }
        };
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED | Spliterator.NONNULL), false);
  }

  /** {@link #stream(Duration)} every {@link #DEFAULT_EVERY}. */
  public Stream<ProgressEvent> stream() {
    return stream(DEFAULT_EVERY);
  }

  /** Hands every event to {@code listener} until the run settles; blocks meanwhile. */
  public void forEach(Consumer<ProgressEvent> listener) {
    stream().forEach(listener);
  }

  private static boolean pause(Duration every) {
    try {
      Thread.sleep(every);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
