package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The run page's model sections: what the run spent on models and its budget (the lines {@code runs
 * show} prints, {@link RunUsage}), and, while the run runs, the text its running model turns are
 * streaming, which the page's script polls from {@code /api/runs/RUN/live} ({@link #json}).
 */
final class ConsoleLive {
  /** How often the page's script asks for the running turns' text. */
  static final int POLL_MILLIS = 500;

  private ConsoleLive() {}

  /** The sections for {@code run} (its detail JSON): spend, then the live text while it runs. */
  static String sections(JsonNode run) {
    StringBuilder b = new StringBuilder();
    spend(b, run);
    if (run.path("status").asText().equals(RunStatus.RUNNING.wire())) {
      String id = URLEncoder.encode(run.path("runId").asText(), StandardCharsets.UTF_8);
      b.append("<section id=\"live\" data-live-text=\"/api/runs/")
          .append(ConsolePages.esc(id))
          .append("/live\" data-every=\"")
          .append(POLL_MILLIS)
          .append("\"><h2>Model turns running</h2><div id=\"live-text\">")
          .append("<p class=\"empty\">no model turn is streaming</p></div></section>");
    }
    return b.toString();
  }

  private static void spend(StringBuilder b, JsonNode run) {
    Optional<String> usage = RunUsage.text("usage", run.path("usage"));
    Optional<String> budget = RunUsage.budgetText(run);
    Optional<String> tree =
        run.has("treeUsage") ? RunUsage.text("tree usage", run.get("treeUsage")) : Optional.empty();
    if (usage.isEmpty() && budget.isEmpty() && tree.isEmpty()) {
      return;
    }
    b.append("<section id=\"spend\"><h2>Model usage</h2><ul>");
    item(b, "usage", usage.or(() -> Optional.of("usage: no model calls")));
    item(b, "budget", budget);
    item(b, "tree-usage", tree);
    b.append("</ul></section>");
  }

  private static void item(StringBuilder b, String id, Optional<String> line) {
    line.ifPresent(
        l ->
            b.append("<li id=\"")
                .append(id)
                .append("\">")
                .append(ConsolePages.esc(l))
                .append("</li>"));
  }

  /**
   * {@code {"runId", "running", "turns": [{"stepId", "label", "text"}]}}: the text each running
   * model turn of the run has streamed so far (none once the run is not running).
   */
  static ObjectNode json(Journal journal, RunRef id) {
    RunSnapshot run = RunsCommand.existing(journal, id);
    boolean running = run.status() == RunStatus.RUNNING;
    ObjectNode out = Session.JSON.createObjectNode().put("runId", id.value());
    out.put("running", running);
    ArrayNode turns = out.putArray("turns");
    if (running) {
      for (LiveText.Partial p : journal.liveText().of(id)) {
        turns
            .addObject()
            .put("stepId", p.stepId())
            .put("label", StepLabel.of(run.spec(), p.stepId()))
            .put("text", p.text());
      }
    }
    return out;
  }
}
