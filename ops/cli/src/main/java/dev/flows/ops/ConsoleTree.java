package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * A run's tree on its page: the run, its children and theirs, each with its status; a run that is
 * parked or failed, or has such a run below it, is highlighted ({@code tree-hot}), so the path from
 * the root to what needs an operator stands out.
 */
final class ConsoleTree {
  private ConsoleTree() {}

  /** The tree's section; empty when the run has no children. */
  static String render(JsonNode run) {
    if (run.path("children").isEmpty()) {
      return "";
    }
    StringBuilder b =
        new StringBuilder("<section id=\"tree\"><h2>Run tree</h2><ul class=\"tree\">");
    node(b, run);
    return b.append("</ul></section>").toString();
  }

  private static void node(StringBuilder b, JsonNode run) {
    String status = run.path("status").asText();
    String hot = hot(run);
    b.append("<li data-run=\"")
        .append(esc(run.path("runId").asText()))
        .append("\" data-status=\"")
        .append(esc(status))
        .append("\"")
        .append(hot.isEmpty() ? "" : " class=\"tree-hot tree-" + hot + "\"")
        .append("><span class=\"tree-node\"><a href=\"/runs/")
        .append(esc(URLEncoder.encode(run.path("runId").asText(), StandardCharsets.UTF_8)))
        .append("\">")
        .append(esc(run.path("label").asText(run.path("name").asText())))
        .append("</a> <span class=\"status status-")
        .append(esc(status))
        .append("\">")
        .append(esc(run.path("displayStatus").asText(status)))
        .append("</span></span>");
    if (!run.path("children").isEmpty()) {
      b.append("<ul class=\"tree\">");
      run.path("children").forEach(c -> node(b, c));
      b.append("</ul>");
    }
    b.append("</li>");
  }

  /**
   * {@code failed} or {@code parked} when the run or one below it is so (failed first); else "".
   */
  static String hot(JsonNode run) {
    String status = run.path("status").asText();
    String worst = status.equals("failed") || status.equals("parked") ? status : "";
    for (JsonNode c : run.path("children")) {
      String below = hot(c);
      if (below.equals("failed") || (below.equals("parked") && worst.isEmpty())) {
        worst = below;
      }
    }
    return worst;
  }
}
