package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.ops.ConsoleTimelineRows.Row;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A run's timeline as the run page opens on it: a waterfall of its items ({@link
 * ConsoleTimelineRows}) on one time axis from the run's creation to its end (or now), each bar an
 * SVG rect (presentation attributes, which the console's Content-Security-Policy allows where it
 * forbids inline styles), each item a {@code <details>} whose body is what selecting it shows.
 * Child runs nest, open, with their own items on the same axis.
 */
final class ConsoleTimeline {
  /** The SVG track's width in user units; bars are placed in thousandths of the axis. */
  private static final int TRACK = 1000;

  /** A JSON value longer than this is folded (closed) under its name. */
  static final int FOLD_CHARS = 400;

  private ConsoleTimeline() {}

  /** The axis of a run: its creation to the latest instant any item of it shows, or {@code now}. */
  record Axis(Instant t0, Instant t1, Instant now) {
    long span() {
      return Math.max(1, Duration.between(t0, t1).toMillis());
    }

    long at(Instant t) {
      return Math.max(0, Math.min(TRACK, Duration.between(t0, t).toMillis() * TRACK / span()));
    }
  }

  static String render(JsonNode run, Instant now) {
    String id = run.path("runId").asText();
    Instant t0 = ConsoleTimelineRows.time(run, "createdAt");
    Instant t1 = latest(run, t0, now);
    Axis axis = new Axis(t0, t1, now);
    StringBuilder b = new StringBuilder("<section id=\"timeline\"><h2>Timeline</h2>");
    b.append("<p class=\"views\">views: <a href=\"#timeline\">timeline</a> · ")
        .append("<a href=\"#steps\">steps</a> · <a href=\"#journal\">journal</a> · ")
        .append("<a id=\"json-view\" href=\"/api/runs/")
        .append(esc(URLEncoder.encode(id, StandardCharsets.UTF_8)))
        .append("\">JSON</a></p>");
    b.append("<div class=\"tl\" data-ms=\"").append(axis.span()).append("\">");
    b.append("<div class=\"tl-axis\"><span class=\"tl-label\">")
        .append(esc(t0.toString()))
        .append("</span><span class=\"tl-ticks\">");
    for (int i = 0; i <= 4; i++) {
      b.append("<span>+").append(ConsolePages.took(Duration.ofMillis(axis.span() * i / 4)));
      b.append("</span>");
    }
    b.append("</span><span class=\"tl-took\">took</span></div>");
    rows(b, run, axis);
    b.append("</div><p class=\"legend\"><span class=\"tl-mark-ok\">done</span>")
        .append(
            " <span class=\"tl-mark-open\">open</span> <span class=\"tl-mark-retry\">retry</span>")
        .append(
            " <span class=\"tl-mark-park\">parked</span> <span class=\"tl-mark-fail\">failed</span>")
        .append(" <span class=\"tl-mark-lease-expired\">lease expired</span></p></section>");
    return b.toString();
  }

  /**
   * Items a run's timeline renders with their detail; the detail of each further one is fetched
   * when it is opened ({@link #itemDetail}), so a run of a thousand memos stays a light page.
   */
  static final int INLINE_DETAILS = 100;

  private static void rows(StringBuilder b, JsonNode run, Axis axis) {
    List<Row> items = ConsoleTimelineRows.of(run);
    String runPath =
        "/runs/" + URLEncoder.encode(run.path("runId").asText(), StandardCharsets.UTF_8);
    for (int i = 0; i < items.size(); i++) {
      Row r = items.get(i);
      Instant end = r.end().orElse(axis.now());
      long ms = Math.max(0, Duration.between(r.start(), end).toMillis());
      b.append("<details class=\"tl-item tl-kind-")
          .append(r.kind())
          .append(r.marks().stream().map(m -> " tl-mark-" + m).reduce("", String::concat))
          .append("\" data-kind=\"")
          .append(r.kind())
          .append("\" data-start=\"")
          .append(r.start())
          .append("\" data-ms=\"")
          .append(ms)
          .append("\" data-marks=\"")
          .append(String.join(" ", r.marks()))
          .append("\"")
          .append(r.child().isPresent() ? " open" : "")
          .append(
              i < INLINE_DETAILS ? "" : " data-detail=\"" + esc(runPath + "/timeline/" + i) + "\"")
          .append("><summary><span class=\"tl-label\" title=\"")
          .append(esc(r.label()))
          .append("\">")
          .append(esc(r.label()))
          .append("</span>");
      bar(b, axis, r.start(), end);
      b.append("<span class=\"tl-took\">")
          .append(esc(ConsolePages.took(Duration.ofMillis(ms))))
          .append(r.end().isPresent() ? "" : " …")
          .append("</span></summary><div class=\"tl-detail\">");
      if (i < INLINE_DETAILS) {
        detail(b, r);
      }
      b.append("</div>");
      if (r.child().isPresent()) {
        b.append("<div class=\"tl-nested\" data-run=\"")
            .append(esc(r.child().get().path("runId").asText()))
            .append("\">");
        rows(b, r.child().get(), axis);
        b.append("</div>");
      }
      b.append("</details>");
    }
  }

  /** The detail of item {@code index} of {@code run}'s timeline, as an HTML fragment. */
  static String itemDetail(JsonNode run, int index) {
    List<Row> items = ConsoleTimelineRows.of(run);
    if (index < 0 || index >= items.size()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the timeline of " + run.path("runId").asText() + " has no item " + index,
          "the timeline item",
          "open an item the run page lists (0 to " + (items.size() - 1) + ")");
    }
    StringBuilder b = new StringBuilder();
    detail(b, items.get(index));
    return b.toString();
  }

  private static void bar(StringBuilder b, Axis axis, Instant start, Instant end) {
    long x = axis.at(start);
    long w = Math.max(3, axis.at(end) - x);
    b.append("<svg class=\"tl-track\" viewBox=\"0 0 ")
        .append(TRACK)
        .append(" 12\" preserveAspectRatio=\"none\" aria-hidden=\"true\"><rect class=\"tl-bar\"")
        .append(" x=\"")
        .append(Math.min(x, TRACK - 3))
        .append("\" y=\"2\" width=\"")
        .append(w)
        .append("\" height=\"8\" rx=\"2\"/></svg>");
  }

  /**
   * What selecting an item shows: its scalar fields, then an MCP receipt's arguments, output and
   * idempotency key, then every other JSON field, folded when long.
   */
  private static void detail(StringBuilder b, Row r) {
    b.append("<dl class=\"facts\">");
    b.append("<dt>started</dt><dd>")
        .append(ConsolePages.time(r.start().toString()))
        .append("</dd>");
    r.end()
        .ifPresent(
            e ->
                b.append("<dt>ended</dt><dd>")
                    .append(ConsolePages.time(e.toString()))
                    .append("</dd>"));
    Iterator<Map.Entry<String, JsonNode>> fields = r.detail().fields();
    StringBuilder folded = new StringBuilder();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      JsonNode v = f.getValue();
      if (v == null || v.isNull()) {
        continue;
      }
      if (RunJson.isReceipt(v)) {
        fact(b, "server · tool", esc(v.path("server").asText() + " · " + v.path("tool").asText()));
        fact(b, "idempotency key", "<code>" + esc(v.path("idempotencyKey").asText()) + "</code>");
        fold(folded, "arguments", v.path("input"));
        fold(folded, "output", v.path("output"));
        fold(folded, "receipt", v);
      } else if (v.isContainerNode()) {
        fold(folded, f.getKey(), v);
      } else {
        fact(b, f.getKey(), "<code>" + esc(v.asText()) + "</code>");
      }
    }
    b.append("</dl>").append(folded);
  }

  private static void fact(StringBuilder b, String name, String html) {
    b.append("<dt>").append(esc(name)).append("</dt><dd>").append(html).append("</dd>");
  }

  /** A JSON value under its name: open when short, folded when longer than {@link #FOLD_CHARS}. */
  static void fold(StringBuilder b, String name, JsonNode v) {
    if (v.isMissingNode()) {
      return;
    }
    String text = v.toPrettyString();
    b.append("<details class=\"fold\"")
        .append(text.length() > FOLD_CHARS ? " data-folded" : " open")
        .append("><summary>")
        .append(esc(name))
        .append(text.length() > FOLD_CHARS ? " (" + text.length() + " characters)" : "")
        .append("</summary><pre>")
        .append(esc(text))
        .append("</pre></details>");
  }

  /** The latest instant the run or any child shows; {@code now} while the run has not ended. */
  private static Instant latest(JsonNode run, Instant t0, Instant now) {
    Optional<Instant> done = ConsoleTimelineRows.optTime(run, "completedAt");
    if (done.isEmpty()) {
      return now.isAfter(t0) ? now : t0;
    }
    Instant max = done.get();
    for (JsonNode e : run.path("timeline")) {
      Instant at = ConsoleTimelineRows.time(e, "at");
      max = at.isAfter(max) ? at : max;
    }
    for (JsonNode c : run.path("children")) {
      Instant at = latest(c, t0, now);
      max = at.isAfter(max) ? at : max;
    }
    for (JsonNode s : run.path("signals")) {
      Instant at = ConsoleTimelineRows.time(s, "sentAt");
      max = at.isAfter(max) ? at : max;
    }
    return max;
  }
}
