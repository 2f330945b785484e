package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.FlowVersionState;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code flows versions FLOW}: per version of the flow with runs not ended or a live worker, its
 * runs, the oldest one's start and the workers serving it ({@code flows.versions}).
 */
@Command(
    name = "versions",
    mixinStandardHelpOptions = true,
    description =
        "The versions of a flow that still have runs or a live worker: per version its runs not"
            + " ended, the oldest one's start and the workers that serve it. A version with runs"
            + " and no worker strands them; one with no run left and a newer version can be"
            + " retired.")
final class VersionsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FLOW", description = "The flow's name (its header's).")
  String flow;

  private final Session s;

  VersionsCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    String name = flow.strip();
    if (name.isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a flow name is required",
          "FLOW",
          "pass the name in the flow's header, e.g. `flows versions triage`");
    }
    List<FlowVersionState> versions =
        s.readyDatabase().withConnection(c -> PostgresWorkerRoster.versions(c, name));
    ObjectNode out = s.object();
    out.put("flow", name);
    ArrayNode list = out.putArray("versions");
    for (FlowVersionState v : versions) {
      ObjectNode o = list.addObject();
      o.put("version", v.version()).put("route", v.route()).put("runs", v.runs());
      v.oldestStartedAt()
          .ifPresentOrElse(
              t -> o.put("oldestStartedAt", t.toString()), () -> o.putNull("oldestStartedAt"));
      ArrayNode w = o.putArray("workers");
      v.workers().forEach(w::add);
      o.put("stranded", v.stranded()).put("retirable", VersionNotes.retirable(v, versions));
    }
    s.emit(out, p -> print(p, name, versions));
    return Exit.SUCCESS;
  }

  private static void print(PrintStream p, String name, List<FlowVersionState> versions) {
    if (versions.isEmpty()) {
      p.println("flow " + name + ": no version has runs not ended or a live worker");
      return;
    }
    p.println("flow " + name + ": " + versions.size() + " version(s)");
    for (FlowVersionState v : versions) {
      StringBuilder line =
          new StringBuilder("version ")
              .append(v.version())
              .append(" (")
              .append(VersionNotes.shortRoute(v.route()))
              .append("): ")
              .append(v.runs())
              .append(v.runs() == 1 ? " run" : " runs");
      v.oldestStartedAt().ifPresent(t -> line.append(", oldest started ").append(t));
      line.append("; workers: ")
          .append(v.workers().isEmpty() ? "none" : String.join(", ", v.workers()));
      VersionNotes.note(v, versions).ifPresent(n -> line.append(" (").append(n).append(")"));
      p.println(line);
    }
  }
}
