package dev.flows.kernel.schedule;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cron expressions as schedules read them, for calendars and exclusions alike: five fields as Unix
 * cron, six with seconds first as Spring's, each expression parsed once (a worker's ticker tests
 * every due schedule's calendar and exclusions at every poll).
 */
final class CronExpressions {
  private static final CronParser UNIX =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser WITH_SECONDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING));

  /** Parsed expressions; cleared when full, so a stream of distinct expressions stays bounded. */
  private static final Map<String, ExecutionTime> PARSED = new ConcurrentHashMap<>();

  private static final int MAX_PARSED = 1_000;

  private CronExpressions() {}

  /** Whether {@code expression} names seconds (six fields). */
  static boolean withSeconds(String expression) {
    return !expression.isEmpty() && expression.split("\\s+").length == 6;
  }

  /**
   * The times {@code expression} matches; throws cron-utils's {@link IllegalArgumentException} (its
   * message the reason) when it does not parse.
   */
  static ExecutionTime times(String expression) {
    ExecutionTime known = PARSED.get(expression);
    if (known != null) {
      return known;
    }
    if (PARSED.size() >= MAX_PARSED) {
      PARSED.clear();
    }
    CronParser parser = withSeconds(expression) ? WITH_SECONDS : UNIX;
    ExecutionTime parsed = ExecutionTime.forCron(parser.parse(expression));
    PARSED.put(expression, parsed);
    return parsed;
  }
}
