package dev.flows.worker;

import dev.flows.kernel.journal.CompletionAck;

/** A completed attempt: the journal's acknowledgement and how many renewals kept it alive. */
public record LeasedCompletion(CompletionAck ack, int renewals) {}
