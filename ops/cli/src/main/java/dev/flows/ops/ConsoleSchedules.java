package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleEntryJson;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The console's schedules: the list from {@code flows.schedules_overview}, each schedule's page
 * (its next ticks, the runs its ticks started, its skipped ticks, its journal) and its actions
 * (pause, resume, trigger) through the journal's schedule verbs, as {@code flows schedules} makes
 * them, with the console's actor.
 */
final class ConsoleSchedules {
  /** How many next ticks a schedule's page lists. */
  static final int NEXT_TICKS = 5;

  /** How many of its latest ticks (started or skipped) a schedule's page lists. */
  static final int RECENT_TICKS = 50;

  static final List<String> ACTIONS = List.of("pause", "resume", "trigger");

  private static final String LIST_SQL =
      "SELECT name, flow, calendar, zone, overlap, paused, next_tick_at, pending_ticks,"
          + " last_run_id, last_run_status, ticks_started, ticks_skipped, last_tick_at"
          + " FROM flows.schedules_overview ORDER BY name";

  private ConsoleSchedules() {}

  /**
   * {@code [/api]/schedules}, {@code [/api]/schedules/NAME} and {@code POST
   * [/api]/schedules/NAME/ACTION}.
   */
  static void route(
      ConsoleHandler h,
      Request request,
      Response response,
      Callback callback,
      String[] parts,
      boolean api) {
    if (parts.length == 2) {
      ConsoleHandler.requireMethod(request.getMethod(), "GET");
      ArrayNode rows = h.withConnection(ConsoleSchedules::list);
      if (api) {
        ConsoleHandler.json(
            response, callback, 200, Session.JSON.createObjectNode().set("schedules", rows));
      } else {
        ConsoleHandler.html(
            response, callback, 200, ConsolePages.page("Schedules", listPage(rows)));
      }
    } else if (parts.length == 3) {
      ConsoleHandler.requireMethod(request.getMethod(), "GET");
      ObjectNode s = detail(h.journal, ConsoleHandler.decode(parts[2]));
      if (api) {
        ConsoleHandler.json(
            response, callback, 200, Session.JSON.createObjectNode().set("schedule", s));
      } else {
        Optional<String> done =
            Optional.ofNullable(Request.extractQueryParameters(request).getValue("done"));
        String csrf = ConsoleGuard.session(request, response);
        String title = "Schedule " + s.path("name").asText();
        ConsoleHandler.html(
            response,
            callback,
            200,
            ConsolePages.page(title, page(s, h.tokenDigest.isPresent(), done, csrf)));
      }
    } else if (parts.length == 4) {
      ConsoleHandler.requireMethod(request.getMethod(), "POST");
      act(h, request, response, callback, parts, api);
    } else {
      throw new ConsoleHandler.Refusal(
          404,
          ErrorCode.INVALID_INPUT.wire(),
          "no page " + Database.oneLine(String.join("/", parts)),
          "the request path",
          "start at /schedules (the schedule list)");
    }
  }

  private static void act(
      ConsoleHandler h,
      Request request,
      Response response,
      Callback callback,
      String[] parts,
      boolean api) {
    String name = ConsoleHandler.decode(parts[2]);
    ObjectNode done;
    try {
      Fields form = ConsoleHandler.fields(request);
      done = act(h.journal, parts[3], name, form, h.guard(request, form));
    } catch (RuntimeException e) {
      String why =
          e instanceof ConsoleHandler.Refusal r
              ? r.oneLine()
              : Database.oneLine(String.valueOf(e.getMessage()));
      ConsoleGuard.log(request, "schedules " + parts[3], why);
      throw e;
    }
    if (api) {
      ConsoleHandler.json(response, callback, 200, done);
    } else {
      response.setStatus(303);
      response
          .getHeaders()
          .put(
              HttpHeader.LOCATION,
              ConsoleBasePath.url(request, "/schedules/")
                  + URLEncoder.encode(name, StandardCharsets.UTF_8)
                  + "?done="
                  + URLEncoder.encode(notice(done), StandardCharsets.UTF_8));
      callback.succeeded();
    }
  }

  /** Every schedule, a row of the overview each. */
  static ArrayNode list(Connection c) throws SQLException {
    ArrayNode rows = Session.JSON.createArrayNode();
    try (PreparedStatement ps = c.prepareStatement(LIST_SQL);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        ObjectNode r = rows.addObject();
        r.put("name", rs.getString("name"))
            .put("flow", rs.getString("flow"))
            .put("calendar", rs.getString("calendar"))
            .put("zone", rs.getString("zone"))
            .put("overlap", rs.getString("overlap"))
            .put("paused", rs.getBoolean("paused"))
            .put("nextTick", instant(rs, "next_tick_at"))
            .put("pendingTicks", rs.getInt("pending_ticks"))
            .put("lastRun", rs.getString("last_run_id"))
            .put("lastRunStatus", rs.getString("last_run_status"))
            .put("ticksStarted", rs.getLong("ticks_started"))
            .put("ticksSkipped", rs.getLong("ticks_skipped"))
            .put("lastTick", instant(rs, "last_tick_at"));
      }
    }
    return rows;
  }

  private static String instant(ResultSet rs, String column) throws SQLException {
    var t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant().toString();
  }

  /**
   * A schedule as {@code schedules show --json} has it, with its next ticks, the runs its latest
   * ticks started (with their status) and its latest skipped ticks.
   */
  static ObjectNode detail(Journal journal, String name) {
    ScheduleState st = SchedulesCommand.existing(journal, name);
    ObjectNode out = SchedulesCommand.json(journal, st);
    ArrayNode next = out.putArray("nextTicks");
    Optional<Instant> t = st.nextTick();
    for (int i = 0; i < NEXT_TICKS && t.isPresent(); i++) {
      next.add(t.get().toString());
      t = st.definition().nextTickAfter(t.get());
    }
    ArrayNode runs = out.putArray("runs");
    ArrayNode skipped = out.putArray("skipped");
    ArrayNode entries = out.putArray("entries");
    List<ScheduleRecord> all = journal.scheduleEntries(name);
    for (ScheduleRecord r : all.reversed()) {
      ObjectNode e = Session.JSON.createObjectNode();
      e.put("seq", r.seq()).put("at", r.at().toString()).put("type", r.entry().type());
      e.put("by", r.by());
      e.setAll(ScheduleEntryJson.payload(r.entry()));
      if (r.entry() instanceof ScheduleEntry.TickStarted s && runs.size() < RECENT_TICKS) {
        e.put("status", journal.run(s.runId()).map(run -> run.status().wire()).orElse("pruned"));
        runs.add(e);
      } else if (r.entry() instanceof ScheduleEntry.TickNotStarted
          && r.entry().type().equals("schedule.tick.skipped")
          && skipped.size() < RECENT_TICKS) {
        skipped.add(e);
      }
      if (entries.size() < RECENT_TICKS) {
        entries.add(e);
      }
    }
    return out;
  }

  /** Pauses, resumes or triggers {@code name} as {@code actor}; answers what it did. */
  static ObjectNode act(Journal journal, String action, String name, Fields form, String actor) {
    SchedulesCommand.existing(journal, name);
    ScheduleChange change =
        switch (action) {
          case "pause" ->
              new ScheduleChange.Pause(
                  name,
                  ConsoleHandler.given(form, "reason").orElse("paused by an operator"),
                  actor);
          case "resume" -> new ScheduleChange.Resume(name, actor);
          case "trigger" -> new ScheduleChange.Trigger(name, actor);
          default ->
              throw new FlowsException(
                  ErrorCode.INVALID_INPUT,
                  "no schedule action " + Database.oneLine(action),
                  "the request path",
                  "use one of " + String.join(", ", ACTIONS));
        };
    Schedules.Changed changed = journal.changeSchedule(change);
    ObjectNode out = Session.JSON.createObjectNode();
    out.put("schedule", name).put("action", action).put("by", actor);
    out.put("changed", !changed.entries().isEmpty());
    changed.state().ifPresent(st -> out.set("state", SchedulesCommand.json(journal, st)));
    return out;
  }

  /** The notice a form action's redirect shows. */
  static String notice(ObjectNode done) {
    String did =
        switch (done.path("action").asText()) {
          case "pause" -> "paused";
          case "resume" -> "resumed";
          default -> "triggered";
        };
    return "schedule "
        + done.path("schedule").asText()
        + " "
        + (done.path("changed").asBoolean() ? did : "unchanged")
        + " by "
        + done.path("by").asText();
  }

  static String link(String name) {
    return "<a href=\"/schedules/"
        + esc(URLEncoder.encode(name, StandardCharsets.UTF_8))
        + "\">"
        + esc(name)
        + "</a>";
  }

  private static String runLink(JsonNode id) {
    if (id == null || id.isNull()) {
      return "-";
    }
    return "<a href=\"/runs/"
        + esc(URLEncoder.encode(id.asText(), StandardCharsets.UTF_8))
        + "\">"
        + esc(id.asText())
        + "</a>";
  }

  private static String text(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode() ? "-" : esc(n.asText());
  }

  private static String time(JsonNode n) {
    return n == null || n.isNull() || n.isMissingNode()
        ? "-"
        : "<time datetime=\"" + esc(n.asText()) + "\">" + esc(n.asText()) + "</time>";
  }

  private static String status(JsonNode n) {
    return n == null || n.isNull()
        ? "-"
        : "<span class=\"status status-" + esc(n.asText()) + "\">" + esc(n.asText()) + "</span>";
  }

  /** The list page. */
  static String listPage(ArrayNode rows) {
    StringBuilder b = new StringBuilder("<h1>Schedules</h1>");
    b.append("<table id=\"schedules\"><thead><tr><th>schedule</th><th>flow</th>")
        .append("<th>calendar</th><th>zone</th><th>overlap</th><th>state</th><th>next tick</th>")
        .append("<th>last tick</th><th>last run</th><th>ticks started</th><th>skipped</th>")
        .append("</tr></thead><tbody>");
    if (rows.isEmpty()) {
      b.append("<tr><td colspan=\"11\" class=\"empty\">no schedules</td></tr>");
    }
    for (JsonNode r : rows) {
      b.append("<tr data-schedule=\"")
          .append(text(r.get("name")))
          .append("\"><td>")
          .append(link(r.path("name").asText()))
          .append("</td><td>")
          .append(text(r.get("flow")))
          .append("</td><td>")
          .append(text(r.get("calendar")))
          .append("</td><td>")
          .append(text(r.get("zone")))
          .append("</td><td>")
          .append(text(r.get("overlap")))
          .append("</td><td>")
          .append(r.path("paused").asBoolean() ? "paused" : "active")
          .append("</td><td>")
          .append(time(r.get("nextTick")))
          .append("</td><td>")
          .append(time(r.get("lastTick")))
          .append("</td><td>")
          .append(runLink(r.get("lastRun")))
          .append(" ")
          .append(status(r.get("lastRunStatus")))
          .append("</td><td>")
          .append(r.path("ticksStarted").asLong())
          .append("</td><td>")
          .append(r.path("ticksSkipped").asLong())
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }

  /** A schedule's page: its definition, next ticks, runs, skipped ticks, journal and actions. */
  static String page(ObjectNode s, boolean actions, Optional<String> done, String csrf) {
    StringBuilder b = new StringBuilder("<h1>Schedule ").append(text(s.get("name")));
    b.append(" <span class=\"status\">")
        .append(s.path("paused").asBoolean() ? "paused" : "active")
        .append("</span></h1>");
    done.ifPresent(
        d -> b.append("<p class=\"notice\" id=\"notice\">").append(esc(d)).append("</p>"));
    b.append("<p><a href=\"/schedules\">all schedules</a></p>");
    b.append("<pre id=\"definition\">")
        .append(esc(s.path("definition").toPrettyString()))
        .append("</pre>");
    b.append("<h2>Next ticks</h2><ol id=\"next-ticks\">");
    s.path("nextTicks").forEach(t -> b.append("<li>").append(time(t)).append("</li>"));
    if (s.path("nextTicks").isEmpty()) {
      b.append("<li class=\"empty\">none: its calendar has ended</li>");
    }
    b.append("</ol>");
    ticks(b, "runs", "Runs", s.path("runs"), true);
    ticks(b, "skipped", "Skipped ticks", s.path("skipped"), false);
    b.append("<h2>Journal</h2><ol id=\"schedule-journal\">");
    s.path("entries")
        .forEach(
            e ->
                b.append("<li>")
                    .append(time(e.get("at")))
                    .append(" ")
                    .append(esc(SchedulesCommand.entryText(e)))
                    .append("</li>"));
    b.append("</ol>");
    actions(b, s.path("name").asText(), actions, csrf);
    return b.toString();
  }

  private static void ticks(
      StringBuilder b, String id, String title, JsonNode rows, boolean withRun) {
    b.append("<h2>").append(title).append("</h2><table id=\"").append(id).append("\">");
    b.append("<thead><tr><th>nominal tick</th><th>source</th><th>decision</th>")
        .append(withRun ? "<th>run</th><th>status</th>" : "")
        .append("<th>at</th></tr></thead><tbody>");
    if (rows.isEmpty()) {
      b.append("<tr><td colspan=\"6\" class=\"empty\">none</td></tr>");
    }
    for (JsonNode e : rows) {
      b.append("<tr><td>")
          .append(time(e.get("nominal")))
          .append("</td><td>")
          .append(text(e.get("source")))
          .append("</td><td>")
          .append(text(e.get("decision")))
          .append("</td><td>");
      if (withRun) {
        b.append(runLink(e.get("runId")))
            .append("</td><td>")
            .append(status(e.get("status")))
            .append("</td><td>");
      }
      b.append(time(e.get("at"))).append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  private static void actions(StringBuilder b, String name, boolean enabled, String csrf) {
    b.append("<section id=\"actions\"><h2>Actions</h2>");
    if (!enabled) {
      b.append("<p class=\"readonly\" id=\"readonly\">read-only: start the console with ")
          .append(Console.TOKEN_VARIABLE)
          .append(" set to pause, resume or trigger from here</p></section>");
      return;
    }
    b.append("<p><label>operator token <input type=\"password\" id=\"token\"")
        .append(" autocomplete=\"off\"></label> <small>kept in this tab only</small></p>");
    String base = "/schedules/" + esc(URLEncoder.encode(name, StandardCharsets.UTF_8)) + "/";
    for (String action : ACTIONS) {
      b.append("<form class=\"action\" method=\"post\" data-action=\"")
          .append(action)
          .append("\" action=\"")
          .append(base)
          .append(action)
          .append("\">")
          .append(ConsoleForms.hidden(csrf))
          .append(
              action.equals("pause")
                  ? "<label>reason <input name=\"reason\" placeholder=\"why\"></label>"
                  : "")
          .append(" <button type=\"submit\">")
          .append(action)
          .append("</button></form>");
    }
    b.append("</section>");
  }
}
