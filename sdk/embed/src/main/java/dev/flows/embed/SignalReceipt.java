package dev.flows.embed;

import dev.flows.sdk.RunId;

/**
 * The answer to {@link RunHandle#signal}: the signal is the {@code seq}-th of its name sent to the
 * run (1 for the first). {@code deduped}: a signal with the same key was sent before, and this
 * answer names that one; nothing new was sent.
 */
public record SignalReceipt(RunId run, String name, long seq, boolean deduped) {}
