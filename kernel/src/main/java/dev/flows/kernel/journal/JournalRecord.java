package dev.flows.kernel.journal;

import java.time.Instant;

/** An entry as stored: its position in the journal (increasing per journal) and its time. */
public record JournalRecord(long seq, Instant at, JournalEntry entry) {}
