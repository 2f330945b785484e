package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** The journal alone: the engine's writes without the engine (a run that measured them). */
final class FloorMarkdown {
  private FloorMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.memoVerbFloor.isEmpty()) {
      return;
    }
    md.append("\n## The journal alone: the engine's writes without the engine\n\n")
        .append(
            "What the f.step and f.mcp targets would measure if everything around the journal"
                + " cost nothing: no flow, body, worker or MCP server. The memo statement is"
                + " `memo_fast_path.sql`, the statement the engine writes f.step memos with, sent"
                + " by plain JDBC with one memo each (each thread its own autocommit connection"
                + " and its own claimed run); `recordConfirmedEffect` is the journal verb a body's"
                + " f.step calls, from c threads (each its own claimed run, group commit on); a"
                + " durable call's two statements are `admit` electing then `confirmAndComplete` of"
                + " a one-step MCP child, back to back, as an inline f.mcp makes them around the"
                + " server's answer. When one of these misses a bound, no engine on this journal"
                + " format meets it on this machine.\n\n")
        .append(
            header(
                "concurrency",
                "memo statement /s",
                "× INSERT",
                "recordConfirmedEffect /s",
                "× INSERT",
                "recordConfirmedEffect p50 ms",
                "f.step (engine) × INSERT"));
    for (int c : results.memoVerbFloor.keySet()) {
      double insert = results.inserts.get(c).perSecond();
      Baseline.Result st = results.memoStatementFloor.get(c);
      Baseline.Result verb = results.memoVerbFloor.get(c);
      md.append(
          row(
              String.valueOf(c),
              f0(st.perSecond()),
              f2(st.perSecond() / insert),
              f0(verb.perSecond()),
              f2(verb.perSecond() / insert),
              f2(verb.latency().p50()),
              f2(results.steps.getOrDefault(c, Double.NaN) / insert)));
    }
    if (results.callFloor != null && results.inserts.containsKey(1)) {
      double commit = results.inserts.get(1).latency().p50();
      md.append(
          "\nA durable call's two statements, c=1: p50 "
              + f2(results.callFloor.latency().p50())
              + " ms, p99 "
              + f2(results.callFloor.latency().p99())
              + " ms; p50 = "
              + f2(results.callFloor.latency().p50() / commit)
              + "× one commit ("
              + f2(commit)
              + " ms), against a bound of 3× for all a durable call adds.\n");
    }
  }
}
