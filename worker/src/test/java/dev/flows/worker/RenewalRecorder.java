package dev.flows.worker;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Remembers when each accepted renewal was sent, so a test knows the worker's local deadline: the
 * last accepted renewal's send time plus the lease.
 */
public final class RenewalRecorder extends ForwardingJournal {
  private final InstantSource clock;
  private final List<Instant> sent = new CopyOnWriteArrayList<>();

  public RenewalRecorder(Journal delegate, InstantSource clock) {
    super(delegate);
    this.clock = clock;
  }

  @Override
  public Instant heartbeat(LeaseToken lease) {
    Instant at = clock.instant();
    Instant deadline = super.heartbeat(lease);
    sent.add(at);
    return deadline;
  }

  public int accepted() {
    return sent.size();
  }

  public Instant localDeadline(Duration lease) {
    return sent.getLast().plus(lease);
  }
}
