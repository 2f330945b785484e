package dev.flows.ops;

import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.sdk.config.FlowsConfigLoader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The payload limits every {@code flows} command opens its journal (and {@code flows worker} and
 * {@code flows run} their worker) with: the {@code limits} of the flows.json {@code $FLOWS_CONFIG}
 * names, else of the nearest flows.json walking up from the working directory, else the defaults.
 * One file thus sets one bound for every writer: {@code flows run}, {@code runs signal}, {@code
 * runs answer}, {@code runs resolve}, {@code schedules}, the console and the workers. A worker's
 * flags and {@code FLOWS_WORKER_*} variables override it ({@link WorkerSettings}). A bad file is
 * refused {@code config_invalid} at its pointer before the database is touched.
 */
final class ConfigLimits {
  static final String CONFIG_VARIABLE = "FLOWS_CONFIG";

  private ConfigLimits() {}

  static PayloadLimits resolve(Map<String, String> env, Path workingDirectory) {
    return file(env, workingDirectory)
        .map(f -> FlowsConfigLoader.load(f).limits())
        .orElse(PayloadLimits.DEFAULTS);
  }

  /** The flows.json read: {@code $FLOWS_CONFIG}, else the nearest one. */
  static Optional<Path> file(Map<String, String> env, Path workingDirectory) {
    String named = env.get(CONFIG_VARIABLE);
    if (named != null && !named.isBlank()) {
      return Optional.of(workingDirectory.resolve(named.trim()));
    }
    return FlowsConfigLoader.find(workingDirectory);
  }
}
