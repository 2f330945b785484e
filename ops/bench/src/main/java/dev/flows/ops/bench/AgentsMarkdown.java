package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Durable agents: turn overhead, journal bytes per turn, heap per waiting agent run. */
final class AgentsMarkdown {
  private AgentsMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.agents.ifPresent(r -> render(r, md));
  }

  private static void render(AgentsBench.Result r, StringBuilder md) {
    md.append("\n## Durable agents\n\n")
        .append(
            "Against the scripted OpenAI-compatible model server in this JVM (real HTTP,"
                + " LangChain4j's OpenAI client). A durable turn is one `f.llm` call, what each"
                + " `f.agent` turn is (effect recorded, model asked, receipt confirmed), timed"
                + " by the body; the bare call is the same one-message request through"
                + " `OpenAiChatModel.chat` alone. "
                + f0(r.size().samples())
                + " calls each after "
                + f0(r.size().warmup())
                + " unmeasured, in the same run. Load average at the section's end: "
                + r.loadAtEnd()
                + ".\n\n")
        .append(header("call", "p50 ms", "p99 ms"))
        .append(row("bare LangChain4j", f2(r.bare().p50()), f2(r.bare().p99())))
        .append(row("durable turn (f.llm)", f2(r.durable().p50()), f2(r.durable().p99())))
        .append(
            row(
                "added by the journal",
                f2(r.durable().p50() - r.bare().p50()),
                f2(r.durable().p99() - r.bare().p99())))
        .append(
            "\nAn agent of "
                + f0(r.size().turns())
                + " tool-call turns (each asking for a tool with "
                + AgentsBench.ARGS.length()
                + " characters of arguments; a tool it lacks, so the error goes back to the"
                + " model and no call is made) and a final answer: the bytes each turn added to"
                + " the journal (its entries' timeline JSON).\n\n")
        .append(header("turn", "journal bytes added"));
    r.bytesAtTurn().forEach((t, b) -> md.append(row(String.valueOf(t), f0(b))));
    md.append(
            "\nThe whole run: "
                + f0(r.runEntries())
                + " journal entries, "
                + f0(r.runBytes())
                + " bytes ("
                + f2(r.runBytes() / 1_048_576.0)
                + " MiB).\n\n")
        .append(
            f0(r.size().waiting())
                + " agent runs that each took one turn and wait for a signal (suspended, past"
                + " a 200 ms in-memory wait): worker heap after GC "
                + f2(r.heapBefore() / 1_048_576.0)
                + " MiB before, "
                + f2(r.heapAfter() / 1_048_576.0)
                + " MiB after ("
                + f0((r.heapAfter() - r.heapBefore()) / (double) r.size().waiting())
                + " bytes per waiting run, the scripted server's copy of each request"
                + " included).\n\n");
    approvals(r, md);
  }

  private static void approvals(AgentsBench.Result r, StringBuilder md) {
    md.append(
        f0(r.size().waiting())
            + " agent runs more, each parked on a tool call waiting for approval (its one"
            + " turn asks for the no-op tool under `.approve`; the call is never sent):"
            + " worker heap after GC "
            + f2(r.heapAfter() / 1_048_576.0)
            + " MiB before, "
            + f2(r.approvalHeapAfter() / 1_048_576.0)
            + " MiB after ("
            + f0((r.approvalHeapAfter() - r.heapAfter()) / (double) r.size().waiting())
            + " bytes per run waiting on approval, the scripted server's copy of each request"
            + " included).\n");
  }
}
