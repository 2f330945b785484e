package dev.flows.ops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the tasks of the task test server were polled, from its events log (one JSON object per
 * {@code tools/call}, {@code task.created} and {@code tasks/get}, each with the server's clock
 * {@code at} in epoch ms): polls per task, the gaps between a task's creation and its first poll
 * and between consecutive polls, and the poll rate while every task was working at once.
 *
 * @param tasks tasks created
 * @param polls {@code tasks/get} requests for them
 * @param completed tasks some poll saw {@code completed}
 * @param gaps creation → first poll and poll → next poll gaps, all tasks
 * @param minGapMs the shortest gap (NaN without one)
 * @param medianGapMs the median gap (NaN without one)
 * @param belowHint gaps shorter than the hint less the tolerance
 * @param plateauSeconds from the last task's creation to the first poll that saw a task end (0 when
 *     a task ended before the last was created)
 * @param plateauPolls polls within the plateau
 * @param endLagMedianMs from a task's end (its creation + its length) to the poll that saw it
 *     completed, median over the completed tasks (NaN without one)
 * @param endLagMaxMs the same, the longest
 */
record TaskPolls(
    int tasks,
    long polls,
    long completed,
    int gaps,
    double minGapMs,
    double medianGapMs,
    long belowHint,
    double plateauSeconds,
    long plateauPolls,
    double endLagMedianMs,
    double endLagMaxMs) {

  /** The share of the hint a gap may fall short by: the clocks' granularity. */
  static final double TOLERANCE = 0.05;

  /** Reads {@code events} of tasks that each work {@code taskMs} and hint {@code hintMs}. */
  static TaskPolls of(List<JsonNode> events, long hintMs, long taskMs) {
    Log log = new Log();
    events.forEach(log::add);
    List<Long> gaps = gaps(log.times);
    List<Long> lags = new ArrayList<>();
    log.completed.forEach((task, at) -> lags.add(at - (log.times.get(task).getFirst() + taskMs)));
    Collections.sort(lags);
    long floor = (long) Math.floor(hintMs * (1 - TOLERANCE));
    long below = gaps.stream().filter(g -> g < floor).count();
    long from = log.lastCreated;
    long to = log.firstEnded;
    double plateau = to > from ? (to - from) / 1000.0 : 0;
    long plateauPolls = log.pollTimes.stream().filter(t -> t >= from && t < to).count();
    return new TaskPolls(
        log.times.size(),
        log.polls,
        log.completed.size(),
        gaps.size(),
        gaps.isEmpty() ? Double.NaN : gaps.getFirst(),
        gaps.isEmpty() ? Double.NaN : gaps.get((gaps.size() - 1) / 2),
        below,
        plateau,
        plateau > 0 ? plateauPolls : 0,
        lags.isEmpty() ? Double.NaN : lags.get((lags.size() - 1) / 2),
        lags.isEmpty() ? Double.NaN : lags.getLast());
  }

  /** Creation → first poll and poll → next poll gaps of every task, shortest first. */
  private static List<Long> gaps(Map<String, List<Long>> times) {
    List<Long> gaps = new ArrayList<>();
    for (List<Long> t : times.values()) {
      // The events are appended in order, but two threads may log out of step by a millisecond.
      Collections.sort(t);
      for (int i = 1; i < t.size(); i++) {
        gaps.add(t.get(i) - t.get(i - 1));
      }
    }
    Collections.sort(gaps);
    return gaps;
  }

  /** The events log read event by event: each task's creation and poll times, and the polls. */
  private static final class Log {
    final Map<String, List<Long>> times = new HashMap<>();
    final Map<String, Long> completed = new HashMap<>();
    final List<Long> pollTimes = new ArrayList<>();
    long lastCreated = Long.MIN_VALUE;
    long firstEnded = Long.MAX_VALUE;
    long polls;

    void add(JsonNode e) {
      long at = e.path("at").asLong();
      String task = e.path("taskId").asText();
      switch (e.path("event").asText()) {
        case "task.created" -> {
          times.computeIfAbsent(task, t -> new ArrayList<>()).add(at);
          lastCreated = Math.max(lastCreated, at);
        }
        case "tasks/get" -> {
          if (!times.containsKey(task)) {
            return;
          }
          times.get(task).add(at);
          pollTimes.add(at);
          polls++;
          if (!e.path("status").asText().equals("working")) {
            firstEnded = Math.min(firstEnded, at);
          }
          if (e.path("status").asText().equals("completed")) {
            completed.merge(task, at, Math::min);
          }
        }
        default -> {}
      }
    }
  }

  /** Polls per task created (NaN without tasks). */
  double pollsPerTask() {
    return tasks == 0 ? Double.NaN : (double) polls / tasks;
  }

  /** Polls per second while every task worked (NaN without a plateau). */
  double plateauRate() {
    return plateauSeconds > 0 ? plateauPolls / plateauSeconds : Double.NaN;
  }

  /** The most polls per second the hint allows with every task in flight: tasks / hint. */
  double hintedRate(long hintMs) {
    return tasks * 1000.0 / hintMs;
  }
}
