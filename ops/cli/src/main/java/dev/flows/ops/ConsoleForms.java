package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The operator action forms of a run's page: only those the run's state allows, each posting the
 * operator token the page keeps in the tab's session storage. A read-only console shows none.
 */
final class ConsoleForms {
  private ConsoleForms() {}

  static String actions(JsonNode run, boolean enabled, String csrf) {
    StringBuilder b = new StringBuilder("<section id=\"actions\"><h2>Actions</h2>");
    if (!enabled) {
      return b.append("<p class=\"readonly\" id=\"readonly\">read-only: start the console with ")
          .append(Console.TOKEN_VARIABLE)
          .append(
              " set to cancel, resume, rerun, resolve, answer or signal from here</p></section>")
          .toString();
    }
    String status = run.path("status").asText();
    boolean ended =
        status.equals("succeeded") || status.equals("failed") || status.equals("canceled");
    String base =
        "/runs/" + esc(URLEncoder.encode(run.path("runId").asText(), StandardCharsets.UTF_8)) + "/";
    b.append("<p><label>operator token <input type=\"password\" id=\"token\"")
        .append(" autocomplete=\"off\"></label> <small>kept in this tab only</small></p>");
    if (!ended) {
      form(
          b,
          csrf,
          base,
          "cancel",
          "<input name=\"reason\" placeholder=\"reason (optional)\">",
          "Cancel run");
      form(
          b,
          csrf,
          base,
          "signal",
          "<input name=\"name\" placeholder=\"signal name\" required>"
              + " <input name=\"payload\" placeholder=\"payload JSON (default null)\">"
              + " <input name=\"key\" placeholder=\"key (optional)\">",
          "Send signal");
    }
    if (status.equals("failed") || status.equals("parked")) {
      form(b, csrf, base, "resume", "", "Resume");
    }
    if (ended && !run.hasNonNull("parentRunId")) {
      form(b, csrf, base, "rerun", "", "Rerun");
    }
    stepForms(b, csrf, base, run);
    return b.append("</section>").toString();
  }

  /** Per step: resolving a parked step, answering or declining a call parked for input. */
  private static void stepForms(StringBuilder b, String csrf, String base, JsonNode run) {
    for (JsonNode s : run.path("steps")) {
      if (s.path("status").asText().equals("parked") && !s.has("inputRequest")) {
        String step = esc(s.path("stepId").asText());
        form(
            b,
            csrf,
            base,
            "resolve",
            "<input type=\"hidden\" name=\"step\" value=\""
                + step
                + "\">step <code>"
                + step
                + "</code>: <label><input type=\"radio\" name=\"outcome\" value=\"performed\">"
                + " performed, with output</label> <input name=\"output\""
                + " placeholder=\"output JSON\"> <label><input type=\"radio\" name=\"outcome\""
                + " value=\"not-performed\" checked> not performed (runs again)</label>",
            "Resolve");
      }
    }
    for (JsonNode s : run.path("steps")) {
      if (s.has("inputRequest")) {
        b.append(ConsoleAnswers.forms(s.get("inputRequest"), csrf));
      }
    }
  }

  /**
   * The hidden fields every action form posts: the operator token (filled in by the script) and the
   * session's CSRF token.
   */
  static String hidden(String csrf) {
    return "<input type=\"hidden\" name=\"token\" class=\"token\"><input type=\"hidden\""
        + " name=\""
        + ConsoleGuard.CSRF_FIELD
        + "\" value=\""
        + esc(csrf)
        + "\">";
  }

  private static void form(
      StringBuilder b, String csrf, String base, String action, String fields, String label) {
    b.append("<form class=\"action\" method=\"post\" data-action=\"")
        .append(action)
        .append("\" action=\"")
        .append(base)
        .append(action)
        .append("\">")
        .append(hidden(csrf))
        .append(fields)
        .append(" <button type=\"submit\">")
        .append(label)
        .append("</button></form>");
  }
}
