package dev.flows.ops;

import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** How a command that admits a flow run starts it: {@code flows run} and {@code runs rerun}. */
final class RunStartFlags {
  @Option(
      names = "--key",
      paramLabel = "KEY",
      description = "Admission key: the same key starts the run once and finds it afterwards.")
  String key;

  @Option(names = "--detach", description = "Start the run and return; a `flows worker` runs it.")
  boolean detach;

  @Option(
      names = "--capacity",
      paramLabel = "N",
      description = "Attempts the in-process worker runs at once (default 16).")
  int capacity = 16;

  @Mixin PayloadFlags payloads = new PayloadFlags();

  boolean full() {
    return payloads.full;
  }

  Optional<String> admissionKey() {
    return Optional.ofNullable(key);
  }
}
