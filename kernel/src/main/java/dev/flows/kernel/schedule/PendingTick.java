package dev.flows.kernel.schedule;

import java.time.Instant;

/** A tick decided to start that waits for the schedule's run going to end. */
public record PendingTick(Instant nominal, TickSource source) {}
