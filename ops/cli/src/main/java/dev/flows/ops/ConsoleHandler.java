package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * Routes the console's requests: pages ({@code /}, {@code /runs/ID}), their JSON ({@code
 * /api/runs}, {@code /api/runs/ID}), the actions ({@code POST [/api]/runs/ID/ACTION}) and the two
 * static assets. Every refusal is one line with a code, never a stack trace.
 */
final class ConsoleHandler extends Handler.Abstract {
  private static final Map<String, String> ASSETS =
      Map.of(
          "/static/console.js", "text/javascript; charset=utf-8",
          "/static/console.css", "text/css; charset=utf-8");

  final Journal journal;
  private final DataSource dataSource;
  final Optional<byte[]> tokenDigest;
  private final ConsoleActions actions;
  private final OpsConfig config = OpsConfig.defaults();
  private final Clock clock = Clock.systemUTC();

  ConsoleHandler(Journal journal, DataSource dataSource, Optional<String> token) {
    this.journal = journal;
    this.dataSource = dataSource;
    this.tokenDigest = token.map(ConsoleHandler::digest);
    this.actions = new ConsoleActions(journal);
  }

  /** A refusal of the console itself (the token rules), outside {@link ErrorCode}. */
  static final class Refusal extends RuntimeException {
    final int status;
    final String code;
    final String place;
    final String fix;

    Refusal(int status, String code, String message, String place, String fix) {
      super(message, null, false, false);
      this.status = status;
      this.code = code;
      this.place = place;
      this.fix = fix;
    }

    String oneLine() {
      return "error " + code + ": " + getMessage() + " (at " + place + ") fix: " + fix;
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    boolean api = path.startsWith("/api/");
    try {
      route(request, response, callback, path, api);
    } catch (Refusal r) {
      refuse(response, callback, api, r.status, r.code, r.getMessage(), r.place, r.fix);
    } catch (RuntimeException e) {
      FlowsException f = FlowsCli.asFlows(e, path);
      refuse(
          response,
          callback,
          api,
          status(f.code()),
          f.code().wire(),
          Database.oneLine(f.getMessage()),
          f.place().orElse(path),
          f.fix().orElse(""));
    }
    return true;
  }

  private void route(
      Request request, Response response, Callback callback, String path, boolean api) {
    String method = request.getMethod();
    String[] parts = (api ? path.substring("/api".length()) : path).split("/", -1);
    if (!api && ASSETS.containsKey(path)) {
      requireMethod(method, "GET");
      asset(response, callback, path);
    } else if (path.equals("/") || path.equals("/api/runs")) {
      requireMethod(method, "GET");
      Fields q = Request.extractQueryParameters(request);
      if (api) {
        json(response, callback, 200, Session.JSON.createObjectNode().set("runs", list(q)));
      } else {
        listPage(response, callback, q);
      }
    } else if (parts.length == 3 && parts[1].equals("runs")) {
      requireMethod(method, "GET");
      ObjectNode run = detail(new RunRef(decode(parts[2])));
      if (api) {
        json(response, callback, 200, Session.JSON.createObjectNode().set("run", run));
      } else {
        Fields q = Request.extractQueryParameters(request);
        html(
            response,
            callback,
            200,
            ConsolePages.detail(
                run,
                tokenDigest.isPresent(),
                Optional.ofNullable(q.getValue("done")),
                clock.instant(),
                ConsoleGuard.session(request, response)));
      }
    } else if (!api
        && parts.length >= 4
        && parts[1].equals("runs")
        && (parts[3].equals("journal") || parts[3].equals("timeline"))
        && isRead(method)) {
      runPart(response, callback, path, parts);
    } else if (api && parts.length == 4 && parts[1].equals("runs") && parts[3].equals("live")) {
      requireMethod(method, "GET");
      json(response, callback, 200, ConsoleLive.json(journal, new RunRef(decode(parts[2]))));
    } else if (parts.length == 4 && parts[1].equals("runs")) {
      requireMethod(method, "POST");
      act(request, response, callback, parts, api);
    } else if (parts.length >= 2 && parts[1].equals("schedules")) {
      ConsoleSchedules.route(this, request, response, callback, parts, api);
    } else if (parts.length == 2 && parts[1].equals("versions")) {
      ConsoleVersions.route(this, request, response, callback, api);
    } else {
      throw new Refusal(
          404,
          ErrorCode.INVALID_INPUT.wire(),
          "no page " + Database.oneLine(path),
          path,
          "start at / (the run list)");
    }
  }

  private void act(
      Request request, Response response, Callback callback, String[] parts, boolean api) {
    ConsoleActions.Done done;
    try {
      RunRef id = new RunRef(decode(parts[2]));
      Fields form = fields(request);
      done = actions.perform(parts[3], id, form, guard(request, form));
    } catch (Refusal r) {
      ConsoleGuard.log(request, parts[3], r.oneLine());
      throw r;
    } catch (RuntimeException e) {
      ConsoleGuard.log(request, parts[3], Database.oneLine(String.valueOf(e.getMessage())));
      throw e;
    }
    if (api) {
      json(response, callback, 200, done.json());
    } else {
      response.setStatus(303);
      response
          .getHeaders()
          .put(
              HttpHeader.LOCATION,
              ConsoleBasePath.url(request, "/runs/")
                  + URLEncoder.encode(done.page().value(), StandardCharsets.UTF_8)
                  + "?done="
                  + URLEncoder.encode(done.text(), StandardCharsets.UTF_8));
      callback.succeeded();
    }
  }

  /**
   * The checks of every action, in order: from the console's own origin, with the operator token,
   * and a form post with the session's CSRF token. Answers the actor journaled with the action.
   */
  String guard(Request request, Fields form) {
    ConsoleGuard.sameOrigin(request);
    String actor = authorize(request, form);
    if (request.getHeaders().get(HttpHeader.AUTHORIZATION) == null) {
      ConsoleGuard.csrf(request, form);
    }
    return actor;
  }

  private ArrayNode list(Fields q) {
    ListRuns.Query query = query(q);
    ArrayNode rows = withConnection(c -> ListRuns.rows(c, query));
    RunWaits.annotate(() -> journal, rows);
    return rows;
  }

  private void listPage(Response response, Callback callback, Fields q) {
    Optional<ArrayNode> rows;
    Optional<String> overview = Optional.empty();
    Optional<FlowsException> refused = Optional.empty();
    try {
      rows = Optional.of(list(q));
      overview = Optional.of(overview(q));
    } catch (FlowsException e) {
      if (e.code() != ErrorCode.INVALID_INPUT) {
        throw e;
      }
      rows = Optional.empty();
      refused = Optional.of(e);
    }
    html(
        response,
        callback,
        refused.isPresent() ? 400 : 200,
        ConsolePages.list(
            q, rows, overview, refused.map(e -> "error " + Database.oneLine(e.oneLine()))));
  }

  /** The list page's overview of the chosen window, over the runs the flow and queue select. */
  private String overview(Fields q) {
    ConsoleOverview.Window w = ConsoleOverview.Window.of(given(q, "window"));
    ConsoleOverview.Scope scope =
        new ConsoleOverview.Scope(given(q, "flow"), given(q, "queue"), given(q, "all").isPresent());
    return ConsoleOverview.render(
        withConnection(c -> ConsoleOverview.read(c, w, scope, clock.instant())));
  }

  /** The filters of the list, from query parameters; a bad one is refused {@code invalid_input}. */
  private ListRuns.Query query(Fields q) {
    Integer limit = null;
    if (given(q, "limit").isPresent()) {
      try {
        limit = Integer.valueOf(given(q, "limit").get());
      } catch (NumberFormatException e) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "limit " + given(q, "limit").get() + " is not a number",
            "limit",
            "pass a whole number, e.g. limit=50");
      }
    }
    return new ListRuns.Query(
        given(q, "status").map(w -> ListRuns.status(w, "status")),
        given(q, "flow"),
        given(q, "queue"),
        given(q, "since").map(w -> ListRuns.since(w, "since")),
        given(q, "run"),
        ListRuns.limit(limit, config, "limit"),
        given(q, "all").isPresent());
  }

  static Optional<String> given(Fields q, String name) {
    return Optional.ofNullable(q.getValue(name)).map(String::strip).filter(v -> !v.isEmpty());
  }

  /** A run's detail: its tree as {@code runs show --json} has it, with input, output, signals. */
  private ObjectNode detail(RunRef id) {
    RunSnapshot run = RunsCommand.existing(journal, id);
    ObjectNode tree = RunJson.tree(journal, run, 0);
    JsonNode input = run.spec().path("steps").path(0).path("input");
    tree.set("input", input.isMissingNode() ? null : input);
    run.steps().stream()
        .filter(st -> st.output().isPresent())
        .reduce((a, b) -> b)
        .flatMap(st -> st.output())
        .ifPresent(o -> tree.set("output", o));
    RunJson.failure(journal, run).ifPresent(f -> tree.set("failure", f));
    tree.set("spec", run.spec());
    withConnection(
        c -> {
          tree.set("reruns", RunsCommand.reruns(c, id));
          tree.set("signals", ConsoleActions.signals(c, id));
          return null;
        });
    return tree;
  }

  <T> T withConnection(Database.Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw Database.translate(e, "the console's database");
    }
  }

  /**
   * Who may act: the token must be configured and sent, as {@code Authorization: Bearer TOKEN} or
   * form field {@code token}. Answers the actor journaled with the action.
   */
  private String authorize(Request request, Fields form) {
    if (tokenDigest.isEmpty()) {
      throw new Refusal(
          403,
          "ui_read_only",
          "this console is read-only: it was started without an operator token",
          "the console",
          "start it with " + Console.TOKEN_VARIABLE + " set to enable actions");
    }
    String header = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    Optional<String> sent =
        header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
            ? Optional.of(header.substring(7).strip())
            : given(form, "token");
    if (sent.isEmpty()) {
      throw new Refusal(
          401,
          "ui_unauthorized",
          "an action needs the operator token",
          "Authorization",
          "send Authorization: Bearer TOKEN, or fill in the token field");
    }
    if (!MessageDigest.isEqual(digest(sent.get()), tokenDigest.get())) {
      throw new Refusal(
          403,
          "ui_forbidden",
          "the operator token does not match",
          "Authorization",
          "send the token the console was started with (" + Console.TOKEN_VARIABLE + ")");
    }
    return "ui:" + Request.getRemoteAddr(request);
  }

  /** Compared as digests, so the comparison takes the same time whatever the lengths. */
  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  static Fields fields(Request request) {
    try {
      return Request.getParameters(request);
    } catch (Exception e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the form cannot be read: " + Database.oneLine(String.valueOf(e.getMessage())),
          "the request body",
          "send application/x-www-form-urlencoded fields");
    }
  }

  static String decode(String segment) {
    return java.net.URLDecoder.decode(segment, StandardCharsets.UTF_8);
  }

  /** A part of a long run's page: its journal, or the detail of one timeline item. */
  private void runPart(Response response, Callback callback, String path, String[] parts) {
    ObjectNode run = detail(new RunRef(decode(parts[2])));
    if (parts.length == 4 && parts[3].equals("journal")) {
      html(response, callback, 200, ConsolePages.journal(run));
    } else if (parts.length == 5 && parts[3].equals("timeline") && parts[4].matches("\\d{1,6}")) {
      html(response, callback, 200, ConsoleTimeline.itemDetail(run, Integer.parseInt(parts[4])));
    } else {
      throw new Refusal(
          404,
          ErrorCode.INVALID_INPUT.wire(),
          "no page " + Database.oneLine(path),
          path,
          "open the run's page, /runs/" + parts[2]);
    }
  }

  private static boolean isRead(String method) {
    return method.equals("GET") || method.equals("HEAD");
  }

  static void requireMethod(String method, String allowed) {
    if (!method.equals(allowed) && !(allowed.equals("GET") && method.equals("HEAD"))) {
      throw new Refusal(
          405,
          ErrorCode.INVALID_INPUT.wire(),
          method + " is not served here",
          "the request method",
          "use " + allowed);
    }
  }

  static int status(ErrorCode code) {
    return switch (code) {
      case RUN_NOT_FOUND, STEP_NOT_FOUND, SCHEDULE_NOT_FOUND -> 404;
      case RUN_TERMINAL, RUN_NOT_ENDED -> 409;
      case DATABASE_UNAVAILABLE -> 503;
      case INTERNAL_ERROR, DATABASE_ERROR, DATABASE_AUTH_FAILED -> 500;
      default -> 400;
    };
  }

  private static void refuse(
      Response response,
      Callback callback,
      boolean api,
      int status,
      String code,
      String message,
      String place,
      String fix) {
    String line = "error " + code + ": " + message + " (at " + place + ") fix: " + fix;
    if (status == 401) {
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"flows\"");
    }
    if (api) {
      ObjectNode error = Session.JSON.createObjectNode();
      error.put("code", code).put("message", message).put("place", place).put("fix", fix);
      json(response, callback, status, Session.JSON.createObjectNode().set("error", error));
    } else {
      html(response, callback, status, ConsolePages.refusal(status, line));
    }
  }

  static void json(Response response, Callback callback, int status, JsonNode body) {
    send(response, callback, status, "application/json", Session.write(body));
  }

  static void html(Response response, Callback callback, int status, String page) {
    send(
        response,
        callback,
        status,
        "text/html; charset=utf-8",
        ConsoleBasePath.page(response.getRequest(), page));
  }

  private static void asset(Response response, Callback callback, String path) {
    try (InputStream in = ConsoleHandler.class.getResourceAsStream("console" + path.substring(7))) {
      if (in == null) {
        throw new IllegalStateException("the console's asset " + path + " is not in the jar");
      }
      send(
          response,
          callback,
          200,
          ASSETS.get(path),
          new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void send(
      Response response, Callback callback, int status, String type, String body) {
    response.setStatus(status);
    var h = response.getHeaders();
    h.put(HttpHeader.CONTENT_TYPE, type);
    h.put(HttpHeader.CACHE_CONTROL, "no-store");
    h.put("X-Content-Type-Options", "nosniff");
    h.put("X-Frame-Options", "DENY");
    // same-origin, not no-referrer: with no-referrer a browser's form post says Origin: null, and
    // the console could not tell its own forms from another site's.
    h.put("Referrer-Policy", "same-origin");
    h.put(
        "Content-Security-Policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; form-action 'self';"
            + " frame-ancestors 'none'");
    Content.Sink.write(response, true, body, callback);
  }
}
