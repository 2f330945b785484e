package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import dev.flows.worker.Pruner;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

  private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");
  private static final String DURATION_FIX = "write a duration such as 30s, 500ms, 2m, 1h or 30d";

  private WorkerSettings() {}

  /** The flags as given (null when absent). */
  record Flags(String capacity, String lease, String poll, String reconcile, String stopGrace) {}

  static WorkerConfig resolve(Flags flags, Map<String, String> env) {
    WorkerConfig.Builder b = WorkerConfig.defaults().toBuilder().pollInterval(CLI_POLL);
    setting(flags.capacity(), "--capacity", env, CAPACITY_VARIABLE)
        .ifPresent(v -> b.capacity(capacity(v)));
    Optional<Given> lease = setting(flags.lease(), "--lease", env, LEASE_VARIABLE);
    lease.ifPresent(v -> b.defaultLease(duration(v)));
    setting(flags.poll(), "--poll", env, POLL_VARIABLE).ifPresent(v -> b.pollInterval(positive(v)));
    setting(flags.reconcile(), "--reconcile", env, RECONCILE_VARIABLE)
        .ifPresent(v -> b.reconcileInterval(positive(v)));
    setting(flags.stopGrace(), "--stop-grace", env, STOP_GRACE_VARIABLE)
        .ifPresent(v -> b.stopGrace(duration(v)));
    WorkerConfig config = b.build();
    if (config.defaultLease().compareTo(MIN_LEASE) < 0) {
      Given at = lease.orElseThrow();
      throw refused(
          at,
          "a lease of "
              + at.value()
              + " is shorter than the renewal period allows (renewed every third of the lease)",
          "give a lease of at least " + MIN_LEASE.toSeconds() + "s (default 30s)");
    }
    return config;
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

  private static int capacity(Given g) {
    try {
      int n = Integer.parseInt(g.value());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw refused(g, "capacity must be a whole number >= 1, not " + g.value(), "e.g. 16");
  }

  private static Duration positive(Given g) {
    Duration d = duration(g);
    if (d.isZero()) {
      throw refused(g, "must be longer than zero, not " + g.value(), DURATION_FIX);
    }
    return d;
  }

  private static Duration duration(Given g) {
    return duration(g.value(), g.place());
  }

  /** A duration as operators write it (500ms, 30s, 2m, 1h, 30d), or {@code config_invalid}. */
  static Duration duration(String value, String place) {
    Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID, "\"" + value + "\" is not a duration", place, DURATION_FIX);
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
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
        .map(g -> new Retention(positive(g), g.value()));
  }

  private static FlowsException refused(Given g, String message, String fix) {
    return new FlowsException(ErrorCode.CONFIG_INVALID, message, g.place(), fix);
  }
}
