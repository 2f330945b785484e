package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.kernel.journal.FlowVersionState;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The console's versions page, {@code [/api]/versions?flow=NAME}: what {@code flows versions}
 * prints, a row per version of the flow with its runs not ended, the oldest one's start, the live
 * workers that serve it and the same notes (its runs wait, it can be retired). A read: no token.
 */
final class ConsoleVersions {
  private ConsoleVersions() {}

  static void route(
      ConsoleHandler h, Request request, Response response, Callback callback, boolean api) {
    ConsoleHandler.requireMethod(request.getMethod(), "GET");
    String flow =
        Optional.ofNullable(Request.extractQueryParameters(request).getValue("flow"))
            .map(String::strip)
            .orElse("");
    List<FlowVersionState> versions =
        flow.isEmpty() ? List.of() : h.withConnection(c -> PostgresWorkerRoster.versions(c, flow));
    if (api) {
      ObjectNode out = Session.JSON.createObjectNode().put("flow", flow);
      ArrayNode list = out.putArray("versions");
      for (FlowVersionState v : versions) {
        ObjectNode o = list.addObject();
        o.put("version", v.version()).put("route", v.route()).put("runs", v.runs());
        o.put("oldestStartedAt", v.oldestStartedAt().map(Object::toString).orElse(null));
        ArrayNode w = o.putArray("workers");
        v.workers().forEach(w::add);
        o.put("stranded", v.stranded()).put("retirable", VersionNotes.retirable(v, versions));
      }
      ConsoleHandler.json(response, callback, 200, out);
    } else {
      String title = flow.isEmpty() ? "Versions" : "Versions of " + flow;
      ConsoleHandler.html(response, callback, 200, ConsolePages.page(title, page(flow, versions)));
    }
  }

  static String page(String flow, List<FlowVersionState> versions) {
    StringBuilder b = new StringBuilder("<h1>Versions</h1>");
    b.append("<form class=\"filters\" method=\"get\" action=\"/versions\">")
        .append("<label>flow <input name=\"flow\" value=\"")
        .append(esc(flow))
        .append("\" placeholder=\"the flow's name\"></label> <button type=\"submit\">show</button>")
        .append("</form>");
    if (flow.isEmpty()) {
      return b.append("<p class=\"empty\">Name a flow to see its versions.</p>").toString();
    }
    if (versions.isEmpty()) {
      return b.append("<p class=\"empty\" id=\"no-versions\">flow ")
          .append(esc(flow))
          .append(": no version has runs not ended or a live worker</p>")
          .toString();
    }
    b.append("<p><a href=\"/?flow=")
        .append(esc(URLEncoder.encode(flow, StandardCharsets.UTF_8)))
        .append("\">runs of ")
        .append(esc(flow))
        .append("</a></p><table id=\"versions\"><thead><tr><th>version</th><th>route</th>")
        .append("<th>runs not ended</th><th>oldest started</th><th>workers</th><th></th>")
        .append("</tr></thead><tbody>");
    for (FlowVersionState v : versions) {
      b.append("<tr><td>")
          .append(esc(v.version()))
          .append("</td><td title=\"")
          .append(esc(v.route()))
          .append("\">")
          .append(esc(VersionNotes.shortRoute(v.route())))
          .append("</td><td>")
          .append(v.runs())
          .append("</td><td>")
          .append(esc(v.oldestStartedAt().map(Object::toString).orElse("")))
          .append("</td><td>")
          .append(v.workers().isEmpty() ? "none" : esc(String.join(", ", v.workers())))
          .append("</td><td class=\"note\">")
          .append(esc(VersionNotes.note(v, versions).orElse("")))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>").toString();
  }
}
