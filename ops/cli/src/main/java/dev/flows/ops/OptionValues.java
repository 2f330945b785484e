package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The one rule of each duration and count option (and of the {@code FLOWS_*} variable that stands
 * for it): its unit and its bounds. Every given value is checked before a command runs, so a bad
 * one is refused {@code config_invalid} at its flag or variable before the database is touched.
 */
final class OptionValues {
  /** Longer than any retention or look-back anyone means: a hundred years. */
  static final Duration LONGEST_PERIOD = Duration.ofDays(36_500);

  /** The longest worker timing (lease, poll, reconcile, stop grace): a day. */
  static final Duration LONGEST_TIMING = Duration.ofDays(1);

  /** More attempts at once than one process (and its N + 4 pooled connections) can hold. */
  static final int MOST_CAPACITY = 1024;

  static final int MOST_PRUNE_BATCH = 10_000;

  private static final Pattern DURATION = Pattern.compile("(\\d{1,18})(ms|s|m|h|d)");
  private static final Pattern COUNT = Pattern.compile("\\d{1,18}");
  private static final String DURATION_FIX = "write a duration such as 30s, 500ms, 2m, 1h or 30d";

  /** What a value of an option must be. */
  sealed interface Rule permits Span, Count, Since {}

  /**
   * A duration from {@code min} to {@code max}; {@code why} explains the bounds ("" or " (...)").
   */
  record Span(Duration min, Duration max, String why, String fix) implements Rule {
    Span(Duration min, Duration max, String fix) {
      this(min, max, "", fix);
    }
  }

  /** A whole number from {@code min} to {@code max}. */
  record Count(long min, long max, String fix) implements Rule {}

  /** A duration ago (a {@link #LONGEST_PERIOD} at most), a date or an instant. */
  record Since() implements Rule {}

  private static final Map<String, Rule> RULES =
      Map.ofEntries(
          Map.entry("--capacity", new Count(1, MOST_CAPACITY, "e.g. 16")),
          Map.entry("--batch", new Count(1, MOST_PRUNE_BATCH, "e.g. 100")),
          Map.entry(
              "--port", new Count(0, 65_535, "give a port from 0 to 65535 (0 picks a free one)")),
          Map.entry(
              "--metrics-port",
              new Count(0, 65_535, "give a port from 0 to 65535 (0 picks a free one)")),
          Map.entry(
              "--lease",
              new Span(
                  WorkerSettings.MIN_LEASE,
                  LONGEST_TIMING,
                  " (a shorter lease leaves no time for its renewal, every third of the lease)",
                  "give a lease of at least 1s (default 30s)")),
          Map.entry("--poll", new Span(Duration.ofMillis(1), LONGEST_TIMING, DURATION_FIX)),
          Map.entry("--reconcile", new Span(Duration.ofMillis(1), LONGEST_TIMING, DURATION_FIX)),
          Map.entry(
              "--stop-grace",
              new Span(Duration.ZERO, LONGEST_TIMING, DURATION_FIX + " (0s: stop at once)")),
          Map.entry("--retention", new Span(Duration.ofSeconds(1), LONGEST_PERIOD, DURATION_FIX)),
          Map.entry(
              "--older-than",
              new Span(Duration.ZERO, LONGEST_PERIOD, DURATION_FIX + " (0s: every ended run)")),
          Map.entry(
              "--pause",
              new Span(
                  Duration.ZERO, LONGEST_TIMING, DURATION_FIX + " (0s: batches back to back)")));

  /** A schedule's interval, offset, catch-up window or jitter (the kernel bounds each further). */
  private static final Span SCHEDULE_SPAN = new Span(Duration.ZERO, LONGEST_PERIOD, DURATION_FIX);

  private OptionValues() {}

  /** A schedule's duration option given at {@code place}. */
  static Duration scheduleDuration(String value, String place) {
    return duration(SCHEDULE_SPAN, value, place);
  }

  /** The rule of {@code option} ({@code --limit}'s bound is the configured list maximum). */
  static Optional<Rule> rule(String option, OpsConfig config) {
    return switch (option) {
      case "--limit" -> Optional.of(new Count(1, config.listMaxLimit(), "e.g. 50"));
      case "--since" -> Optional.of(new Since());
      case "--every", "--offset", "--catch-up-window", "--jitter" -> Optional.of(SCHEDULE_SPAN);
      case "--entries" -> Optional.of(new Count(1, MOST_PRUNE_BATCH, "e.g. 50"));
      default -> Optional.ofNullable(RULES.get(option));
    };
  }

  /**
   * Whether 0 means something for {@code option} (a port picked free, a stop at once, every ended
   * run).
   */
  static boolean zeroAllowed(String option) {
    return switch (rule(option, OpsConfig.defaults()).orElseThrow()) {
      case Span s -> s.min().isZero();
      case Count c -> c.min() == 0;
      case Since s -> false;
    };
  }

  /** Checks every duration and count option the command line gave, at every level. */
  static void check(ParseResult parsed, OpsConfig config) {
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      for (OptionSpec o : p.matchedOptions()) {
        Optional<Rule> rule = rule(o.longestName(), config);
        if (rule.isPresent()) {
          o.originalStringValues().forEach(v -> check(rule.get(), v, o.longestName()));
        }
      }
    }
  }

  /**
   * The refusal of a value picocli could not convert (a count that is not a number), as its rule
   * words it; empty when the parameter has no rule.
   */
  static Optional<FlowsException> refusal(ParameterException e, OpsConfig config) {
    ArgSpec arg = e.getArgSpec();
    if (!(arg instanceof OptionSpec o) || e.getValue() == null) {
      return Optional.empty();
    }
    Optional<Rule> rule = rule(o.longestName(), config);
    try {
      rule.ifPresent(r -> check(r, e.getValue(), o.longestName()));
    } catch (FlowsException refused) {
      return Optional.of(refused);
    }
    return Optional.empty();
  }

  private static void check(Rule rule, String value, String place) {
    switch (rule) {
      case Span s -> duration(s, value, place);
      case Count c -> count(c, value, place);
      case Since s -> since(value, place);
    }
  }

  /** {@code option}'s duration given at {@code place} (the flag, or its variable). */
  static Duration duration(String option, String value, String place) {
    return duration((Span) RULES.get(option), value, place);
  }

  /** {@code option}'s whole number given at {@code place} (the flag, or its variable). */
  static long count(String option, String value, String place) {
    return count((Count) RULES.get(option), value, place);
  }

  private static Duration duration(Span rule, String value, String place) {
    Optional<Duration> d = parse(value);
    if (d.isEmpty()) {
      throw refused(place, "\"" + value + "\" is not a duration", DURATION_FIX);
    }
    if (d.get().compareTo(rule.min()) < 0 || d.get().compareTo(rule.max()) > 0) {
      throw refused(
          place,
          "must be from "
              + written(rule.min())
              + " to "
              + written(rule.max())
              + ", not "
              + value
              + rule.why(),
          rule.fix());
    }
    return d.get();
  }

  static long count(Count rule, String value, String place) {
    String v = value.strip();
    if (COUNT.matcher(v).matches()) {
      long n = Long.parseLong(v);
      if (n >= rule.min() && n <= rule.max()) {
        return n;
      }
    }
    throw refused(
        place,
        "must be a whole number from " + rule.min() + " to " + rule.max() + ", not " + value,
        rule.fix());
  }

  private static void since(String value, String place) {
    Optional<Duration> ago = parse(value);
    if (ago.isPresent()) {
      duration(new Span(Duration.ofSeconds(1), LONGEST_PERIOD, DURATION_FIX), value, place);
      return;
    }
    try {
      ListRuns.since(value, place);
    } catch (FlowsException e) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID, e.getMessage(), place, e.fix().orElse(DURATION_FIX));
    }
  }

  /** A duration as operators write it (500ms, 30s, 2m, 1h, 30d); empty when it is not one. */
  static Optional<Duration> parse(String value) {
    Matcher m = DURATION.matcher(value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    try {
      return Optional.of(
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          });
    } catch (ArithmeticException e) {
      // Longer than a Duration holds: past every bound.
      return Optional.of(LONGEST_PERIOD.multipliedBy(1_000));
    }
  }

  private static String written(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.toMillis() % 86_400_000 == 0) {
      return d.toDays() + "d";
    }
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
  }

  private static FlowsException refused(String place, String message, String fix) {
    return new FlowsException(ErrorCode.CONFIG_INVALID, place + " " + message, place, fix);
  }
}
