package dev.flows.ops;

import static dev.flows.ops.ConsolePages.esc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.mcp.InputRequest;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.util.Fields;

/**
 * Answering a call parked for input from the console: a form generated from what the server asked
 * (a form request's {@code requestedSchema}: strings, numbers, integers, booleans, enums, required;
 * a URL to visit; any other request or property kind as JSON), and the answer read back from the
 * posted fields by the same schema, read again from the journal (never trusted from the page).
 * Field names: {@code in.KEY.PROPERTY} for a form's property, {@code json.KEY} for a request given
 * as JSON, {@code visited.KEY} for a URL. A tool call waiting for approval gets its own fieldset:
 * the proposed call, a decision ({@code approval.decision}: approve, send edited arguments, deny),
 * the edited arguments ({@code approval.args}, the proposed ones to start from) and a reason for a
 * denial ({@code approval.reason}); the journal's answer verb checks the shape it makes.
 */
final class ConsoleAnswers {
  private ConsoleAnswers() {}

  /** The answer and decline forms of {@code request} ({@code runs show}'s {@code inputRequest}). */
  static String forms(JsonNode request, String csrf) {
    String run = request.path("runId").asText();
    String step = request.path("stepId").asText();
    String action = "/runs/" + esc(URLEncoder.encode(run, StandardCharsets.UTF_8)) + "/answer";
    StringBuilder b = new StringBuilder("<div class=\"answer-request\" data-step=\"");
    b.append(esc(step))
        .append("\"><h3>input requested by ")
        .append(esc(request.path("server").asText() + " · " + request.path("tool").asText()))
        .append(" (step <code>")
        .append(esc(step))
        .append("</code>)</h3>");
    open(b, csrf, action, step, "answer");
    Iterator<Map.Entry<String, JsonNode>> it = request.path("requests").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> r = it.next();
      fieldset(b, r.getKey(), InputRequest.of(r.getValue()));
    }
    b.append("<button type=\"submit\">Answer</button></form>");
    open(b, csrf, action, step, "decline");
    b.append("<input type=\"hidden\" name=\"decline\" value=\"1\">")
        .append("<button type=\"submit\">Decline</button></form></div>");
    return b.toString();
  }

  private static void open(StringBuilder b, String csrf, String action, String step, String kind) {
    b.append("<form class=\"action answer\" method=\"post\" data-action=\"")
        .append(kind)
        .append("\" action=\"")
        .append(action)
        .append("\">")
        .append(ConsoleForms.hidden(csrf))
        .append("<input type=\"hidden\" name=\"step\" value=\"")
        .append(esc(step))
        .append("\">");
  }

  private static void fieldset(StringBuilder b, String key, InputRequest request) {
    if (isApproval(request)) {
      approval(b, request.raw().path("params"));
      return;
    }
    b.append("<fieldset><legend>").append(esc(key)).append("</legend>");
    switch (request) {
      case InputRequest.Form f -> {
        b.append("<p>").append(esc(f.message())).append("</p>");
        Set<String> required = required(f.requestedSchema());
        Iterator<Map.Entry<String, JsonNode>> props =
            f.requestedSchema().path("properties").fields();
        while (props.hasNext()) {
          Map.Entry<String, JsonNode> p = props.next();
          input(b, key, p.getKey(), p.getValue(), required.contains(p.getKey()));
        }
      }
      case InputRequest.Url u ->
          b.append("<p>")
              .append(esc(u.message()))
              .append(": <code>")
              .append(esc(u.url()))
              .append("</code></p><label><input type=\"checkbox\" name=\"visited.")
              .append(esc(key))
              .append("\" value=\"1\" required> visited</label>");
      case InputRequest.Other o ->
          b.append("<label>")
              .append(esc(o.method()))
              .append(" answer (JSON) <textarea name=\"json.")
              .append(esc(key))
              .append("\" required></textarea></label>");
    }
    b.append("</fieldset>");
  }

  private static boolean isApproval(InputRequest request) {
    return request instanceof InputRequest.Other o && o.method().equals(ToolApproval.METHOD);
  }

  private static void approval(StringBuilder b, JsonNode call) {
    String args = call.path("arguments").toPrettyString();
    b.append("<fieldset class=\"approval\"><legend>approval</legend><p>send <code>")
        .append(esc(call.path("server").asText() + "/" + call.path("tool").asText()))
        .append("</code> with</p><pre class=\"proposed\">")
        .append(esc(args))
        .append("</pre><label>decision <select name=\"approval.decision\" required>")
        .append("<option value=\"approve\">approve: send it as proposed</option>")
        .append("<option value=\"args\">send the edited arguments below</option>")
        .append("<option value=\"deny\">deny: do not send it</option></select></label>")
        .append("<label>reason of a denial <input name=\"approval.reason\"></label>")
        .append("<label>edited arguments (JSON) <textarea name=\"approval.args\">")
        .append(esc(args))
        .append("</textarea></label></fieldset>");
  }

  /** The answer the approval fieldset gives: the shape {@code flows runs answer} takes. */
  private static JsonNode approvalAnswer(Fields form) {
    String decision = ConsoleHandler.given(form, "approval.decision").orElse("");
    ObjectNode out = Session.JSON.createObjectNode();
    return switch (decision) {
      case "approve" -> out.put(ToolApproval.APPROVE, true);
      case "deny" ->
          out.put(
              ToolApproval.DENY,
              ConsoleHandler.given(form, "approval.reason").orElse("denied in the console"));
      case "args" ->
          out.set(
              ToolApproval.ARGS,
              RunsCommand.Resolve.json(
                  ConsoleHandler.given(form, "approval.args").orElse(""), "approval.args"));
      default ->
          throw new FlowsException(
              ErrorCode.APPROVAL_ANSWER_INVALID,
              "approval.decision must be approve, args or deny, got '" + decision + "'",
              "approval.decision",
              "choose a decision in the approval form");
    };
  }

  private static void input(
      StringBuilder b, String key, String name, JsonNode schema, boolean required) {
    String field = esc("in." + key + "." + name);
    String type = schema.path("type").asText("string");
    String title = schema.path("title").asText(name);
    b.append("<label>").append(esc(title)).append(required ? " *" : "").append(" ");
    String req = required ? " required" : "";
    if (schema.path("enum").isArray()) {
      b.append("<select name=\"").append(field).append("\"").append(req).append(">");
      b.append(required ? "" : "<option value=\"\"></option>");
      for (JsonNode v : schema.get("enum")) {
        b.append("<option>").append(esc(v.asText())).append("</option>");
      }
      b.append("</select>");
    } else {
      switch (type) {
        case "boolean" ->
            b.append("<input type=\"checkbox\" value=\"true\" name=\"").append(field).append("\">");
        case "integer", "number" ->
            b.append("<input type=\"number\"")
                .append(type.equals("integer") ? " step=\"1\"" : " step=\"any\"")
                .append(" name=\"")
                .append(field)
                .append("\"")
                .append(req)
                .append(">");
        case "string" ->
            b.append("<input name=\"").append(field).append("\"").append(req).append(">");
        default ->
            b.append("<textarea name=\"")
                .append(field)
                .append("\" placeholder=\"JSON\"")
                .append(req)
                .append("></textarea>");
      }
    }
    if (schema.hasNonNull("description")) {
      b.append(" <small>").append(esc(schema.get("description").asText())).append("</small>");
    }
    b.append("</label>");
  }

  private static Set<String> required(JsonNode schema) {
    java.util.HashSet<String> out = new java.util.HashSet<>();
    schema.path("required").forEach(r -> out.add(r.asText()));
    return out;
  }

  /**
   * The answer the posted {@code form} gives to step {@code step} of {@code run}: {@code decline},
   * or each request's answer read by its schema (one request: its answer; several: keyed by
   * request). A step not parked for input is refused {@code invalid_input} by the journal verb.
   */
  static InputAnswer read(Journal journal, RunRef run, String step, Fields form) {
    if (ConsoleHandler.given(form, "decline").isPresent()) {
      return new InputAnswer.Decline();
    }
    JsonNode park =
        DurableInput.parked(journal.entries(run), step)
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.INVALID_INPUT,
                        "step " + step + " of run " + run.value() + " is not parked for input",
                        "step",
                        "answer a step the run page shows as waiting for input"));
    ObjectNode all = Session.JSON.createObjectNode();
    Iterator<Map.Entry<String, JsonNode>> it = park.path(DurableInput.REQUESTS).fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> r = it.next();
      all.set(r.getKey(), answer(r.getKey(), InputRequest.of(r.getValue()), form));
    }
    return new InputAnswer.Accept(all.size() == 1 ? all.elements().next() : all);
  }

  private static JsonNode answer(String key, InputRequest request, Fields form) {
    if (isApproval(request)) {
      return approvalAnswer(form);
    }
    return switch (request) {
      case InputRequest.Form f -> {
        ObjectNode content = Session.JSON.createObjectNode();
        Iterator<Map.Entry<String, JsonNode>> props =
            f.requestedSchema().path("properties").fields();
        while (props.hasNext()) {
          Map.Entry<String, JsonNode> p = props.next();
          String field = "in." + key + "." + p.getKey();
          value(field, p.getValue(), form).ifPresent(v -> content.set(p.getKey(), v));
        }
        yield content;
      }
      case InputRequest.Url u -> Session.JSON.createObjectNode();
      case InputRequest.Other o ->
          RunsCommand.Resolve.json(
              ConsoleHandler.given(form, "json." + key).orElse(""), "json." + key);
    };
  }

  /** A property's value by its schema's type; an empty field is absent (the schema says if ok). */
  private static java.util.Optional<JsonNode> value(String field, JsonNode schema, Fields form) {
    String type = schema.path("type").asText("string");
    if (type.equals("boolean") && !schema.path("enum").isArray()) {
      return java.util.Optional.of(
          Session.JSON.getNodeFactory().booleanNode(ConsoleHandler.given(form, field).isPresent()));
    }
    return ConsoleHandler.given(form, field)
        .map(
            v ->
                switch (type) {
                  case "integer", "number" -> number(field, v, type.equals("integer"));
                  case "string" -> Session.JSON.getNodeFactory().textNode(v);
                  default -> RunsCommand.Resolve.json(v, field);
                });
  }

  private static JsonNode number(String field, String v, boolean integer) {
    try {
      BigDecimal n = new BigDecimal(v);
      return integer
          ? Session.JSON.getNodeFactory().numberNode(n.toBigIntegerExact())
          : Session.JSON.getNodeFactory().numberNode(n);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          field + " " + v + " is not " + (integer ? "a whole number" : "a number"),
          field,
          "give " + (integer ? "a whole number" : "a number"));
    }
  }
}
