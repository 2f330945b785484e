package dev.flows.ops;

import picocli.CommandLine.Option;

/** The flag of every command that prints payloads: folded at a JSON value (default), or whole. */
final class PayloadFlags {
  @Option(
      names = "--full",
      description = "Show payloads (receipts, outputs, diagnostics) whole, not folded.")
  boolean full;
}
