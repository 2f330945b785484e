package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.Queues;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.worker.Pruner;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code flows worker}'s settings: each from its flag, else its {@code FLOWS_WORKER_*} variable,
 * else {@link WorkerConfig}'s named default (the poll interval: {@link #CLI_POLL}). A bad value is
 * refused {@code config_invalid} at the flag or variable it came from.
 */
final class WorkerSettings {
  static final String CAPACITY_VARIABLE = "FLOWS_WORKER_CAPACITY";
  static final String LEASE_VARIABLE = "FLOWS_WORKER_LEASE";
  static final String POLL_VARIABLE = "FLOWS_WORKER_POLL";
  static final String RECONCILE_VARIABLE = "FLOWS_WORKER_RECONCILE";
  static final String STOP_GRACE_VARIABLE = "FLOWS_WORKER_STOP_GRACE";
  static final String RETENTION_VARIABLE = "FLOWS_WORKER_RETENTION";

  /** The CLI's workers look for work four times a second when no NOTIFY wakes them. */
  static final Duration CLI_POLL = Duration.ofMillis(250);

  /**
   * The shortest lease an operator may set: it is renewed every third of what remains, and a
   * renewal is a database round trip that may need a retry (the first after 100 ms).
   */
  static final Duration MIN_LEASE = Duration.ofSeconds(1);

  private WorkerSettings() {}

  /** The flags as given (null when absent). */
  record Flags(String capacity, String lease, String poll, String reconcile, String stopGrace) {}

  static final String MAX_RESULT_BYTES_VARIABLE = "FLOWS_WORKER_MAX_RESULT_BYTES";

  /**
   * The MCP client limits of {@code flows worker}: the defaults, with {@code --max-result-bytes}
   * (or its variable) as the largest answer a server without its own flows.json limit may send.
   */
  static McpClientConfig mcpLimits(String maxResultBytes, Map<String, String> env) {
    return setting(maxResultBytes, "--max-result-bytes", env, MAX_RESULT_BYTES_VARIABLE)
        .map(
            g ->
                McpClientConfig.DEFAULTS.withMaxResultBytes(
                    (int)
                        OptionValues.count(
                            new OptionValues.Count(
                                McpClientConfig.MIN_RESULT_BYTES,
                                Integer.MAX_VALUE,
                                "give a byte count, e.g. "
                                    + McpClientConfig.DEFAULT_MAX_RESULT_BYTES
                                    + " (the default)"),
                            g.value(),
                            g.place())))
        .orElse(McpClientConfig.DEFAULTS);
  }

  static final String MAX_OUTPUT_BYTES_VARIABLE = "FLOWS_WORKER_MAX_OUTPUT_BYTES";
  static final String MAX_RECEIPT_BYTES_VARIABLE = "FLOWS_WORKER_MAX_RECEIPT_BYTES";

  /**
   * The payload limits of {@code flows worker}: {@code base} (flows.json's, {@link ConfigLimits}),
   * with {@code --max-output-bytes} and {@code --max-receipt-bytes} (or their variables) as the
   * largest step output and MCP receipt it journals: flag, else variable, else file, else default.
   */
  static PayloadLimits payloadLimits(
      PayloadLimits base, String maxOutputBytes, String maxReceiptBytes, Map<String, String> env) {
    PayloadLimits limits = base;
    Optional<Given> output =
        setting(maxOutputBytes, "--max-output-bytes", env, MAX_OUTPUT_BYTES_VARIABLE);
    if (output.isPresent()) {
      limits = limits.withMaxStepOutputBytes(bytes(output.get()));
    }
    Optional<Given> receipt =
        setting(maxReceiptBytes, "--max-receipt-bytes", env, MAX_RECEIPT_BYTES_VARIABLE);
    if (receipt.isPresent()) {
      limits = limits.withMaxReceiptBytes(bytes(receipt.get()));
    }
    return limits;
  }

  static final String MAX_RUN_INPUT_BYTES_VARIABLE = "FLOWS_WORKER_MAX_RUN_INPUT_BYTES";
  static final String MAX_SIGNAL_BYTES_VARIABLE = "FLOWS_WORKER_MAX_SIGNAL_BYTES";
  static final String MAX_ANSWER_BYTES_VARIABLE = "FLOWS_WORKER_MAX_ANSWER_BYTES";

  /**
   * {@code limits} with the journal's own limits of {@code flows worker}: {@code
   * --max-run-input-bytes}, {@code --max-signal-bytes} and {@code --max-answer-bytes} (or their
   * variables), held by the journal the worker writes through.
   */
  static PayloadLimits journalLimits(
      PayloadLimits limits,
      String maxRunInputBytes,
      String maxSignalBytes,
      String maxAnswerBytes,
      Map<String, String> env) {
    PayloadLimits out = limits;
    Optional<Given> input =
        setting(maxRunInputBytes, "--max-run-input-bytes", env, MAX_RUN_INPUT_BYTES_VARIABLE);
    if (input.isPresent()) {
      out = out.withMaxRunInputBytes(bytes(input.get()));
    }
    Optional<Given> signal =
        setting(maxSignalBytes, "--max-signal-bytes", env, MAX_SIGNAL_BYTES_VARIABLE);
    if (signal.isPresent()) {
      out = out.withMaxSignalBytes(bytes(signal.get()));
    }
    Optional<Given> answer =
        setting(maxAnswerBytes, "--max-answer-bytes", env, MAX_ANSWER_BYTES_VARIABLE);
    if (answer.isPresent()) {
      out = out.withMaxAnswerBytes(bytes(answer.get()));
    }
    return out;
  }

  private static long bytes(Given g) {
    return OptionValues.count(
        new OptionValues.Count(
            PayloadLimits.MIN_BYTES,
            PayloadLimits.MAX_BYTES,
            "give a byte count, e.g. " + PayloadLimits.DEFAULT_MAX_BYTES + " (the default)"),
        g.value(),
        g.place());
  }

  static WorkerConfig resolve(Flags flags, Map<String, String> env) {
    WorkerConfig.Builder b = WorkerConfig.defaults().toBuilder().pollInterval(CLI_POLL);
    setting(flags.capacity(), "--capacity", env, CAPACITY_VARIABLE)
        .ifPresent(v -> b.capacity((int) OptionValues.count("--capacity", v.value(), v.place())));
    setting(flags.lease(), "--lease", env, LEASE_VARIABLE)
        .ifPresent(v -> b.defaultLease(duration("--lease", v)));
    setting(flags.poll(), "--poll", env, POLL_VARIABLE)
        .ifPresent(v -> b.pollInterval(duration("--poll", v)));
    setting(flags.reconcile(), "--reconcile", env, RECONCILE_VARIABLE)
        .ifPresent(v -> b.reconcileInterval(duration("--reconcile", v)));
    setting(flags.stopGrace(), "--stop-grace", env, STOP_GRACE_VARIABLE)
        .ifPresent(v -> b.stopGrace(duration("--stop-grace", v)));
    return b.build();
  }

  /** The queues to serve: each {@code --queue}, else {@link Queues#DEFAULT}. */
  static Set<String> queues(List<String> given) {
    if (given == null || given.isEmpty()) {
      return Set.of(Queues.DEFAULT);
    }
    Set<String> out = new LinkedHashSet<>();
    for (String q : given) {
      if (!Queues.valid(q)) {
        throw new FlowsException(
            ErrorCode.CONFIG_INVALID,
            "\"" + q + "\" is not a queue name",
            "--queue",
            "use 1 to 100 of A-Z a-z 0-9 _ . - starting with a letter or digit");
      }
      out.add(q);
    }
    return out;
  }

  /** A setting's text and where it came from (the flag, or the variable). */
  private record Given(String value, String place) {}

  private static Optional<Given> setting(
      String flag, String flagName, Map<String, String> env, String variable) {
    if (flag != null) {
      return Optional.of(new Given(flag.trim(), flagName));
    }
    String v = env.get(variable);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(new Given(v.trim(), variable));
  }

  private static Duration duration(String option, Given g) {
    return OptionValues.duration(option, g.value(), g.place());
  }

  /**
   * The retention of {@code flows worker}: the period its {@link Pruner} prunes by, and that period
   * as the operator wrote it (for {@code worker.ready} and its line).
   */
  record Retention(Duration period, String written) {
    /** What the worker's pruner is started with. */
    Pruner.Config prunerConfig() {
      return Pruner.Config.of(period);
    }
  }

  /** The retention of {@code flows worker}: empty unless asked for. */
  static Optional<Retention> retention(String flag, Map<String, String> env) {
    // One setting read once: the period shown is the text the Pruner's period was parsed from.
    return setting(flag, "--retention", env, RETENTION_VARIABLE)
        .map(g -> new Retention(duration("--retention", g), g.value()));
  }
}
