package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpException;
import java.util.Optional;

/**
 * The loss listener of a stdio server under its {@code server/discover} probe. Its process may die
 * while it is probed; the probe then either hands the transport over to the session that goes on
 * with it, which must learn of the loss, or discards it and starts the server anew in the same
 * connect attempt. The connection cannot tell one transport's loss from another's: told of the
 * discarded one, it takes it for the loss of the attempt in flight and aborts the fresh server's
 * handshake. So a loss is held while the probe runs, reported at the hand-over, dropped at a
 * discard.
 */
final class HeldLoss implements LossListener {
  private enum Phase {
    PROBING,
    HANDED_OVER,
    DISCARDED
  }

  private final LossListener to;
  private Phase phase = Phase.PROBING;
  private Optional<McpException> held = Optional.empty();

  HeldLoss(LossListener to) {
    this.to = to;
  }

  @Override
  public void lost(McpException why) {
    synchronized (this) {
      switch (phase) {
        case PROBING -> {
          held = Optional.of(why);
          return;
        }
        case DISCARDED -> {
          return;
        }
        case HANDED_OVER -> {}
      }
    }
    to.lost(why);
  }

  /** The transport goes on: a loss held so far is reported now, later ones as they come. */
  void handOver() {
    Optional<McpException> now;
    synchronized (this) {
      phase = Phase.HANDED_OVER;
      now = held;
      held = Optional.empty();
    }
    now.ifPresent(to::lost);
  }

  /** The transport is given up: its loss, held or still to come, concerns no one. */
  synchronized void discard() {
    phase = Phase.DISCARDED;
    held = Optional.empty();
  }
}
