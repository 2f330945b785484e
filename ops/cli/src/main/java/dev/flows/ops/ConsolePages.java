package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.flows.kernel.lifecycle.RunStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.util.Fields;

/**
 * The console's HTML, rendered on the server from the same JSON {@code runs list} and {@code runs
 * show} print. Everything that comes from the journal or the request is escaped ({@link #esc}).
 */
final class ConsolePages {
  /** Entries a run page shows inline; a longer journal is one click away, on its own page. */
  static final int JOURNAL_INLINE = 200;

  private static final List<String> FILTERS = List.of("status", "flow", "queue", "since", "run");

  private ConsolePages() {}

  /** Text made safe for HTML element content and quoted attribute values. */
  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static String text(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? "" : esc(n.asText());
  }

  private static String json(JsonNode n) {
    return n == null || n.isMissingNode() ? "" : esc(n.toPrettyString());
  }

  private static String runLink(String id) {
    return "<a href=\"/runs/"
        + esc(URLEncoder.encode(id, StandardCharsets.UTF_8))
        + "\">"
        + esc(id)
        + "</a>";
  }

  /**
   * A status badge styled by the raw status, reading as {@code shown} (a wait, {@link RunWaits}).
   */
  private static String badge(String status, String shown) {
    return "<span class=\"status status-"
        + esc(status)
        + (shown.equals(status) ? "" : " status-waiting")
        + "\">"
        + esc(shown)
        + "</span>";
  }

  /** The badge of a run or step as JSON gives it: its {@code displayStatus} when it has one. */
  private static String badge(JsonNode o) {
    String status = o.path("status").asText();
    return badge(status, o.path("displayStatus").asText(status));
  }

  static String page(String title, String body) {
    return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + esc(title)
        + " · flows</title><link rel=\"stylesheet\" href=\"/static/console.css\">"
        + "<script src=\"/static/console.js\" defer></script></head><body>"
        + "<header><a class=\"home\" href=\"/\">flows</a> <span>console</span><nav>"
        + "<a href=\"/\">runs</a> <a href=\"/schedules\">schedules</a><button type=\"button\" id=\"theme-toggle\""
        + " title=\"switch light and dark\">theme</button></nav></header><main>"
        + body
        + "</main></body></html>\n";
  }

  static String refusal(int status, String line) {
    return page(
        "error " + status,
        "<p class=\"refusal\" id=\"refusal\">"
            + esc(line)
            + "</p><p><a href=\"/\">back to the run list</a></p>");
  }

  /** The run list with its filter form; {@code refused} replaces the rows when a filter was bad. */
  static String list(
      Fields q, Optional<ArrayNode> rows, Optional<String> overview, Optional<String> refused) {
    StringBuilder b = new StringBuilder("<h1>Runs</h1>");
    filters(b, q);
    if (refused.isPresent()) {
      b.append("<p class=\"refusal\" id=\"refusal\">").append(esc(refused.get())).append("</p>");
      return page("Runs", b.toString());
    }
    b.append(overview.orElse(""));
    b.append("<p class=\"live\">live: <span id=\"live-status\">updates every 2 s</span></p>");
    b.append("<table id=\"runs\" data-live=\"2000\"><thead><tr><th>run</th><th>flow</th>")
        .append("<th>status</th><th>queue</th><th>steps</th><th>children</th><th>created</th>")
        .append("<th>completed</th></tr></thead><tbody>");
    ArrayNode runs = rows.orElseThrow();
    if (runs.isEmpty()) {
      b.append("<tr><td colspan=\"8\" class=\"empty\">no runs match</td></tr>");
    }
    for (JsonNode r : runs) {
      row(b, r);
    }
    b.append("</tbody></table>");
    return page("Runs", b.toString());
  }

  private static void filters(StringBuilder b, Fields q) {
    b.append("<form class=\"filters\" method=\"get\" action=\"/\" id=\"filters\">");
    String status = ConsoleHandler.given(q, "status").orElse("");
    b.append("<label>status <select name=\"status\"><option value=\"\">any</option>");
    for (RunStatus s : RunStatus.values()) {
      b.append("<option")
          .append(s.wire().equals(status) ? " selected" : "")
          .append(">")
          .append(esc(s.wire()))
          .append("</option>");
    }
    b.append("</select></label>");
    String window = ConsoleHandler.given(q, "window").orElse("1h");
    b.append("<label>window <select name=\"window\">");
    for (ConsoleOverview.Window w : ConsoleOverview.Window.values()) {
      b.append("<option").append(w.wire.equals(window) ? " selected" : "").append(">");
      b.append(w.wire).append("</option>");
    }
    b.append("</select></label>");
    for (String f : FILTERS.subList(1, FILTERS.size())) {
      b.append("<label>")
          .append(f.equals("run") ? "run id, admission or idempotency key" : f)
          .append(" <input name=\"")
          .append(f)
          .append("\" value=\"")
          .append(esc(ConsoleHandler.given(q, f).orElse("")))
          .append("\"")
          .append(f.equals("since") ? " placeholder=\"30m, 2h, 7d, 2026-11-29\"" : "")
          .append("></label>");
    }
    b.append("<label><input type=\"checkbox\" name=\"all\" value=\"1\"")
        .append(ConsoleHandler.given(q, "all").isPresent() ? " checked" : "")
        .append("> child runs too</label>");
    b.append("<button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>");
  }

  private static void row(StringBuilder b, JsonNode r) {
    b.append("<tr data-run=\"")
        .append(text(r.get("runId")))
        .append("\"><td>")
        .append(runLink(r.path("runId").asText()))
        .append("</td><td>")
        .append(text(r.get("name")))
        .append("</td><td>")
        .append(badge(r))
        .append(
            r.hasNonNull("waitingReason") && !r.has("waitingFor")
                ? " <span class=\"note\">" + text(r.get("waitingReason")) + "</span>"
                : "")
        .append("</td><td>")
        .append(text(r.get("queue")))
        .append("</td><td>")
        .append(r.path("stepsSucceeded").asInt())
        .append('/')
        .append(r.path("stepsTotal").asInt())
        .append("</td><td>")
        .append(r.path("children").asLong())
        .append("</td><td>")
        .append(time(r.get("createdAt")))
        .append("</td><td>")
        .append(time(r.get("completedAt")))
        .append("</td></tr>");
  }

  /** A run's page: header, input, output or failure, steps, signals, actions, children, journal. */
  static String detail(
      JsonNode run, boolean actions, Optional<String> done, Instant now, String csrf) {
    StringBuilder b = new StringBuilder();
    String id = run.path("runId").asText();
    b.append("<h1>Run <code id=\"run-id\">").append(esc(id)).append("</code></h1>");
    done.ifPresent(
        d -> b.append("<p class=\"notice\" id=\"notice\">").append(esc(d)).append("</p>"));
    facts(b, run);
    b.append(ConsoleTree.render(run)).append(ConsoleLive.sections(run));
    b.append(ConsoleTimeline.render(run, now));
    b.append("<section id=\"input\"><h2>Input</h2><pre>")
        .append(run.hasNonNull("input") ? json(run.get("input")) : "(none)")
        .append("</pre></section>");
    if (run.has("failure")) {
      failure(b, run.get("failure"));
    }
    if (run.has("output")) {
      b.append("<section id=\"output\"><h2>Output</h2><pre>")
          .append(json(run.get("output")))
          .append("</pre></section>");
    }
    b.append("<section id=\"steps\"><h2>Steps</h2>");
    for (JsonNode s : run.path("steps")) {
      step(b, s, id);
    }
    b.append("</section>");
    signals(b, run.path("signals"));
    b.append(ConsoleForms.actions(run, actions, csrf));
    b.append("<section id=\"children\"><h2>Child runs</h2>");
    if (run.path("children").isEmpty()) {
      b.append("<p class=\"empty\">none</p>");
    }
    for (JsonNode c : run.path("children")) {
      child(b, c);
    }
    b.append("</section>");
    if (run.path("timeline").size() <= JOURNAL_INLINE) {
      timeline(b, run.path("timeline"));
    } else {
      b.append("<section id=\"journal\"><h2>Journal</h2><p><a id=\"journal-view\" href=\"/runs/")
          .append(esc(URLEncoder.encode(id, StandardCharsets.UTF_8)))
          .append("/journal\">open the journal</a> (")
          .append(run.path("timeline").size())
          .append(" entries)</p></section>");
    }
    b.append("<details><summary>spec</summary><pre>")
        .append(json(run.get("spec")))
        .append("</pre></details>");
    return page("Run " + id, b.toString());
  }

  private static void facts(StringBuilder b, JsonNode run) {
    b.append("<dl class=\"facts\">");
    fact(b, "flow", text(run.get("name")));
    fact(
        b,
        "status",
        "<span id=\"run-status\">"
            + badge(run)
            + "</span>"
            + (run.hasNonNull("completionReason")
                ? " (" + text(run.get("completionReason")) + ")"
                : ""));
    fact(b, "queue", text(run.get("queue")));
    fact(b, "created", time(run.get("createdAt")));
    fact(b, "completed", time(run.get("completedAt")));
    fact(b, "admission key", "<code>" + text(run.get("admissionKey")) + "</code>");
    if (run.hasNonNull("parentRunId")) {
      fact(b, "parent", runLink(run.get("parentRunId").asText()));
    }
    if (run.hasNonNull("rerunOf")) {
      fact(b, "rerun of", runLink(run.get("rerunOf").asText()));
    }
    if (!run.path("reruns").isEmpty()) {
      StringBuilder r = new StringBuilder();
      run.get("reruns").forEach(x -> r.append(runLink(x.asText())).append(' '));
      fact(b, "rerun as", r.toString());
    }
    if (run.hasNonNull("waitingReason")) {
      fact(b, "waiting", text(run.get("waitingReason")));
    }
    b.append("</dl>");
  }

  private static void failure(StringBuilder b, JsonNode f) {
    b.append("<section id=\"failure\" class=\"failure\"><h2>Failure</h2><p>step <code>")
        .append(text(f.get("stepId")))
        .append("</code>: <strong>")
        .append(esc(f.path("diagnostic").asText("failed")))
        .append("</strong>")
        .append(f.hasNonNull("message") ? ": " + text(f.get("message")) : "")
        .append("</p>")
        .append(f.hasNonNull("fix") ? "<p>fix: " + text(f.get("fix")) + "</p>" : "")
        .append("<details><summary>diagnostic</summary><pre>")
        .append(json(f))
        .append("</pre></details></section>");
  }

  /**
   * An instant shown absolute, which the page's script adds the relative reading to ("3 min ago");
   * empty when there is none.
   */
  static String time(String iso) {
    return iso.isEmpty()
        ? ""
        : "<time datetime=\"" + esc(iso) + "\" title=\"" + esc(iso) + "\">" + esc(iso) + "</time>";
  }

  private static String time(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? "" : time(n.asText());
  }

  private static void fact(StringBuilder b, String name, String html) {
    b.append("<dt>").append(esc(name)).append("</dt><dd>").append(html).append("</dd>");
  }

  private static void step(StringBuilder b, JsonNode s, String runId) {
    b.append("<div class=\"step\" data-step=\"")
        .append(text(s.get("stepId")))
        .append("\"><h3>step <code>")
        .append(esc(s.path("label").asText(s.path("stepId").asText())))
        .append("</code> ")
        .append(badge(s))
        .append(" <small>")
        .append(s.path("attemptCount").asInt())
        .append(" attempt(s)")
        .append(
            s.hasNonNull("lastReason") && !s.has("waitingFor")
                ? ", last " + text(s.get("lastReason"))
                : "")
        .append("</small></h3>");
    if (s.has("waitsFor")) {
      b.append("<p class=\"wait\">waits for ")
          .append(esc(BodyWait.text(s.get("waitsFor"), runId)))
          .append("</p>");
    }
    if (s.hasNonNull("resolvedBy")) {
      b.append("<p>resolved by ")
          .append(text(s.get("resolvedBy")))
          .append(s.path("resolvedPerformed").asBoolean() ? " (performed)" : " (not performed)")
          .append("</p>");
    }
    if (s.has("resolveCommand")) {
      b.append("<p class=\"parked\">parked: an operator resolves it (<code>")
          .append(text(s.get("resolveCommand")))
          .append("</code>)</p>");
    }
    attempts(b, s.path("attempts"));
    effects(b, s.path("effects"));
    if (s.has("receipt")) {
      b.append("<details open><summary>receipt: what the tool answered</summary><pre>")
          .append(json(Payloads.readable(s.get("receipt").path("output"))))
          .append("</pre></details><details><summary>receipt</summary><pre>")
          .append(json(s.get("receipt")))
          .append("</pre></details>");
    } else if (s.hasNonNull("output")) {
      b.append("<details><summary>output</summary><pre>")
          .append(json(s.get("output")))
          .append("</pre></details>");
    }
    b.append("</div>");
  }

  private static void attempts(StringBuilder b, JsonNode attempts) {
    b.append("<table class=\"attempts\"><thead><tr><th>attempt</th><th>worker</th><th>lease</th>")
        .append("<th>started</th><th>ended</th><th>took</th><th>reason</th><th>disposition</th>")
        .append("<th>diagnostic</th></tr></thead><tbody>");
    for (JsonNode a : attempts) {
      b.append("<tr><td>")
          .append(a.path("attempt").asInt())
          .append("</td><td>")
          .append(text(a.get("workerId")))
          .append("</td><td><code>")
          .append(text(a.get("leaseId")))
          .append("</code><br><small>until ")
          .append(text(a.get("leaseDeadline")))
          .append("</small></td><td>")
          .append(text(a.get("startedAt")))
          .append("</td><td>")
          .append(a.has("endedAt") ? text(a.get("endedAt")) : "open")
          .append("</td><td>")
          .append(took(a.path("startedAt").asText(""), a.path("endedAt").asText("")))
          .append("</td><td>")
          .append(text(a.get("reason")))
          .append("</td><td>")
          .append(text(a.get("disposition")))
          .append("</td><td>")
          .append(a.has("diagnostic") ? "<pre>" + json(a.get("diagnostic")) + "</pre>" : "")
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  private static void effects(StringBuilder b, JsonNode effects) {
    if (effects.isEmpty()) {
      return;
    }
    b.append("<table class=\"effects\"><thead><tr><th>effect</th><th>idempotency key</th>")
        .append("<th>attempt</th><th>state</th><th>receipt / output</th></tr></thead><tbody>");
    for (JsonNode e : effects) {
      b.append("<tr><td><code>")
          .append(text(e.get("surfacePath")))
          .append("</code></td><td><code>")
          .append(text(e.get("idempotencyKey")))
          .append("</code></td><td>")
          .append(e.path("attempt").asInt())
          .append("</td><td>")
          .append(
              e.path("confirmed").asBoolean()
                  ? "confirmed " + text(e.get("confirmedAt"))
                  : "recorded, not confirmed")
          .append("</td><td><pre>")
          .append(e.hasNonNull("output") ? json(e.get("output")) : "")
          .append("</pre></td></tr>");
    }
    b.append("</tbody></table>");
  }

  static String took(String started, String ended) {
    if (started.isEmpty() || ended.isEmpty()) {
      return "";
    }
    try {
      return took(Duration.between(Instant.parse(started), Instant.parse(ended)));
    } catch (DateTimeParseException e) {
      return "";
    }
  }

  /** A duration as people read it: milliseconds under 10 s, else seconds. */
  static String took(Duration d) {
    return d.toMillis() < 10_000
        ? d.toMillis() + " ms"
        : String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static void signals(StringBuilder b, JsonNode signals) {
    b.append("<section id=\"signals\"><h2>Signals</h2>");
    if (signals.isEmpty()) {
      b.append("<p class=\"empty\">none sent</p></section>");
      return;
    }
    b.append("<table><thead><tr><th>name</th><th>#</th><th>payload</th><th>key</th>")
        .append("<th>sent</th><th>state</th><th>delivered</th></tr></thead><tbody>");
    for (JsonNode s : signals) {
      b.append("<tr><td>")
          .append(text(s.get("name")))
          .append("</td><td>")
          .append(s.path("seq").asLong())
          .append("</td><td><pre>")
          .append(json(s.get("payload")))
          .append("</pre></td><td><code>")
          .append(text(s.get("key")))
          .append("</code></td><td>")
          .append(text(s.get("sentAt")))
          .append("</td><td>")
          .append(text(s.get("state")))
          .append("</td><td>")
          .append(text(s.get("deliveredAt")))
          .append("</td></tr>");
    }
    b.append("</tbody></table></section>");
  }

  /** A child run, nested: its header and steps; its own page has the rest. */
  private static void child(StringBuilder b, JsonNode c) {
    b.append("<div class=\"child\" data-child=\"")
        .append(text(c.get("runId")))
        .append("\"><h3>")
        .append(runLink(c.path("runId").asText()))
        .append(" ")
        .append(esc(c.path("label").asText(c.path("name").asText())))
        .append(" ")
        .append(badge(c))
        .append("</h3>");
    for (JsonNode s : c.path("steps")) {
      step(b, s, c.path("runId").asText());
    }
    for (JsonNode g : c.path("children")) {
      child(b, g);
    }
    b.append("</div>");
  }

  /** A run's journal on a page of its own, for a run too long to show it on its page. */
  static String journal(JsonNode run) {
    String id = run.path("runId").asText();
    StringBuilder b = new StringBuilder("<h1>Journal of ").append(runLink(id)).append("</h1>");
    timeline(b, run.path("timeline"));
    return page("Journal " + id, b.toString());
  }

  private static void timeline(StringBuilder b, JsonNode entries) {
    b.append("<section id=\"journal\"><h2>Journal</h2><table><thead><tr><th>#</th><th>at</th>")
        .append("<th>entry</th><th>fields</th></tr></thead><tbody>");
    for (JsonNode e : entries) {
      com.fasterxml.jackson.databind.node.ObjectNode rest = e.deepCopy();
      rest.remove(List.of("seq", "at", "type", "runId"));
      b.append("<tr><td>")
          .append(e.path("seq").asLong())
          .append("</td><td>")
          .append(text(e.get("at")))
          .append("</td><td><code>")
          .append(text(e.get("type")))
          .append("</code></td><td><pre>")
          .append(esc(rest.toString()))
          .append("</pre></td></tr>");
    }
    b.append("</tbody></table></section>");
  }
}
