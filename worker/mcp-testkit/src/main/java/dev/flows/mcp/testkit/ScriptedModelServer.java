package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An OpenAI-compatible model server over real HTTP on 127.0.0.1 that answers {@code POST
 * /v1/chat/completions} from a {@link ScriptedModel}, one turn per request in order (text and
 * usage, tool calls, 429 with {@code Retry-After}, errors, content-filter refusals; {@code
 * "stream": true} is answered as server-sent events, a text one word per event). A request past the
 * script's end is answered 500. Every request body is kept ({@link #requests}), so a test sees what
 * the client sent.
 *
 * <p>{@code main SCRIPT.json [PORT]} serves a script file and prints {@code listening on
 * http://127.0.0.1:PORT/v1}.
 *
 * <p>Started with a {@link ConversationModel} instead, each request is answered from its own
 * conversation, whatever the order requests come in (a turn asked again gets the same answer).
 */
public final class ScriptedModelServer implements AutoCloseable {
  private final Server jetty;
  private final ScriptedModel script;
  private final java.util.Optional<ConversationModel> conversation;
  private final List<JsonNode> requests = new ArrayList<>();
  private final List<String> authorizations = new ArrayList<>();
  private volatile Duration deltaDelay = Duration.ZERO;

  private ScriptedModelServer(
      ScriptedModel script, java.util.Optional<ConversationModel> conversation, int port)
      throws Exception {
    this.script = script;
    this.conversation = conversation;
    this.jetty = new Server();
    ServerConnector c = new ServerConnector(jetty);
    c.setHost("127.0.0.1");
    c.setPort(port);
    jetty.addConnector(c);
    ServletContextHandler ctx = new ServletContextHandler();
    ctx.setContextPath("/");
    ctx.addServlet(new ServletHolder(new Completions()), "/v1/chat/completions");
    jetty.setHandler(ctx);
    jetty.start();
  }

  /** Serves {@code script} on {@code port} (0: a free one). */
  public static ScriptedModelServer start(ScriptedModel script, int port) throws Exception {
    return new ScriptedModelServer(script, java.util.Optional.empty(), port);
  }

  /** Serves {@code model}'s conversation-aware answers on {@code port} (0: a free one). */
  public static ScriptedModelServer start(ConversationModel model, int port) throws Exception {
    return new ScriptedModelServer(ScriptedModel.of(), java.util.Optional.of(model), port);
  }

  public static ScriptedModelServer start(ScriptedModel script) throws Exception {
    return start(script, 0);
  }

  public int port() {
    return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }

  /** The base URL an OpenAI client takes: {@code http://127.0.0.1:PORT/v1}. */
  public String baseUrl() {
    return "http://127.0.0.1:" + port() + "/v1";
  }

  /**
   * Streams every text answer from now on with {@code delay} after each word's delta, so a test
   * sees the answer's text grow (default none).
   */
  public ScriptedModelServer deltaDelay(Duration delay) {
    this.deltaDelay = delay;
    return this;
  }

  /** The bodies of the requests answered so far, in order. */
  public synchronized List<JsonNode> requests() {
    return List.copyOf(requests);
  }

  /** The {@code Authorization} header of each request answered so far ("" when none), in order. */
  public synchronized List<String> authorizations() {
    return List.copyOf(authorizations);
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
  }

  private synchronized int take(JsonNode body, String authorization) {
    authorizations.add(authorization == null ? "" : authorization);
    requests.add(body);
    return requests.size() - 1;
  }

  private final class Completions extends HttpServlet {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      JsonNode body = Jackson.mapper().readTree(req.getInputStream());
      int n = take(body, req.getHeader("Authorization"));
      resp.setCharacterEncoding(StandardCharsets.UTF_8.name());
      java.util.Optional<ScriptedModel.Turn> turn = turn(n, body);
      if (turn.isEmpty()) {
        error(
            resp,
            500,
            "the script has no turn " + (n + 1) + " (it has " + script.turns().size() + ")");
        return;
      }
      String model = body.path("model").asText("scripted");
      ObjectNode answer =
          switch (turn.get()) {
            case ScriptedModel.Failure f -> {
              f.retryAfter()
                  .ifPresent(
                      d -> resp.setHeader("Retry-After", String.valueOf(d.toMillis() / 1000.0)));
              error(resp, f.status(), f.message());
              yield null;
            }
            case ScriptedModel.Text t ->
                completion(n, model, message(t.text()), "stop", t.inputTokens(), t.outputTokens());
            case ScriptedModel.Refused r ->
                completion(n, model, message(r.text()), "content_filter", 10, 1);
            case ScriptedModel.ToolCalls tc ->
                completion(
                    n, model, toolCalls(tc), "tool_calls", tc.inputTokens(), tc.outputTokens());
          };
      if (answer == null) {
        return;
      }
      if (body.path("stream").asBoolean(false)) {
        stream(resp, answer);
      } else {
        resp.setContentType("application/json");
        resp.getWriter().write(answer.toString());
      }
    }
  }

  /**
   * The answer to request {@code n} (0-based) with {@code body}: the conversation model's, after
   * its latency; else the script's turn {@code n}, empty past its end.
   */
  private java.util.Optional<ScriptedModel.Turn> turn(int n, JsonNode body) {
    if (conversation.isPresent()) {
      try {
        Thread.sleep(conversation.get().latency().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return java.util.Optional.of(conversation.get().answer(body));
    }
    return n < script.turns().size()
        ? java.util.Optional.of(script.turns().get(n))
        : java.util.Optional.empty();
  }

  private static ObjectNode message(String text) {
    return ScriptedModel.object().put("role", "assistant").put("content", text);
  }

  private static ObjectNode toolCalls(ScriptedModel.ToolCalls tc) {
    ObjectNode m = ScriptedModel.object().put("role", "assistant").putNull("content");
    ArrayNode calls = m.putArray("tool_calls");
    for (ScriptedModel.ToolCall c : tc.calls()) {
      ObjectNode call = calls.addObject().put("id", c.id()).put("type", "function");
      call.putObject("function").put("name", c.name()).put("arguments", ScriptedModel.arguments(c));
    }
    return m;
  }

  private static ObjectNode completion(
      int n, String model, ObjectNode message, String finish, long in, long out) {
    ObjectNode r = ScriptedModel.object().put("id", "chatcmpl-scripted-" + (n + 1));
    r.put("object", "chat.completion").put("created", 0).put("model", model);
    ObjectNode choice = r.putArray("choices").addObject().put("index", 0);
    choice.set("message", message);
    choice.put("finish_reason", finish);
    r.putObject("usage")
        .put("prompt_tokens", in)
        .put("completion_tokens", out)
        .put("total_tokens", in + out);
    return r;
  }

  /**
   * The answer as OpenAI streams it: a text answer as one delta per word (each flushed, {@link
   * #deltaDelay} apart), any other message as one delta; then the end with the usage, then {@code
   * [DONE]}.
   */
  private void stream(HttpServletResponse resp, ObjectNode answer) throws IOException {
    resp.setContentType("text/event-stream");
    PrintWriter w = resp.getWriter();
    ObjectNode choice = (ObjectNode) answer.path("choices").get(0);
    ObjectNode delta = answer.deepCopy();
    delta.put("object", "chat.completion.chunk").remove("usage");
    ObjectNode dc = (ObjectNode) delta.path("choices").get(0);
    dc.remove("message");
    dc.putNull("finish_reason");
    JsonNode message = choice.get("message");
    String text = message.path("content").asText("");
    if (message.has("tool_calls") || text.isEmpty()) {
      dc.set("delta", message);
      w.write("data: " + delta + "\n\n");
    } else {
      for (String word : text.split("(?<=\\s)(?=\\S)")) {
        dc.putObject("delta").put("role", "assistant").put("content", word);
        w.write("data: " + delta + "\n\n");
        w.flush();
        pause();
      }
    }
    ObjectNode end = delta.deepCopy();
    ObjectNode ec = (ObjectNode) end.path("choices").get(0);
    ec.putObject("delta");
    ec.put("finish_reason", choice.path("finish_reason").asText());
    end.set("usage", answer.get("usage"));
    w.write("data: " + end + "\n\n");
    w.write("data: [DONE]\n\n");
    w.flush();
  }

  private void pause() throws IOException {
    Duration d = deltaDelay;
    if (d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while streaming", e);
    }
  }

  private static void error(HttpServletResponse resp, int status, String message)
      throws IOException {
    resp.setStatus(status);
    resp.setContentType("application/json");
    ObjectNode e = ScriptedModel.object();
    e.putObject("error")
        .put("message", message)
        .put("type", status == 429 ? "rate_limit_exceeded" : "server_error");
    resp.getWriter().write(e.toString());
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: model-server SCRIPT.json [PORT]");
      System.exit(2);
    }
    ScriptedModel script = ScriptedModel.fromFile(Path.of(args[0]));
    ScriptedModelServer s = start(script, args.length > 1 ? Integer.parseInt(args[1]) : 0);
    System.out.println("listening on " + s.baseUrl());
    System.out.flush();
    Thread.currentThread().join();
  }
}
