package dev.flows.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.FlowsException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What one {@code flows} invocation works with: its streams, environment, options and (opened on
 * first use) its database. Commands print through it so that {@code --json} and the one-line
 * refusal format are the same everywhere.
 */
final class Session implements AutoCloseable {
  static final String HOME_VARIABLE = "FLOWS_HOME";
  static final String DEBUG_VARIABLE = "FLOWS_DEBUG";
  static final ObjectMapper JSON = new ObjectMapper();

  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> env;
  private final OpsConfig config;
  private final GlobalOptions options;
  private Database database;

  Session(
      PrintStream out,
      PrintStream err,
      Map<String, String> env,
      OpsConfig config,
      GlobalOptions options) {
    this.out = out;
    this.err = err;
    this.env = Map.copyOf(env);
    this.config = config;
    this.options = options;
  }

  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  Map<String, String> env() {
    return env;
  }

  OpsConfig config() {
    return config;
  }

  boolean json() {
    return options.json;
  }

  boolean debug() {
    return options.debug || "1".equals(env.get(DEBUG_VARIABLE));
  }

  /** {@code $FLOWS_HOME}, else {@code ~/.flows}. */
  Path home() {
    String h = env.get(HOME_VARIABLE);
    if (h != null && !h.isBlank()) {
      return Path.of(h).toAbsolutePath();
    }
    return Path.of(System.getProperty("user.home"), ".flows");
  }

  DatabaseTarget target() {
    return DatabaseTarget.resolve(Optional.ofNullable(options.db), env, home());
  }

  /** The database, connected (and the embedded server started) on first use. */
  Database database() {
    if (database == null) {
      database = Database.open(target(), config, this::notice);
    }
    return database;
  }

  /** A line for the human on stderr (kept off stdout so {@code --json} output stays parseable). */
  void notice(String line) {
    err.println(line);
  }

  /** Prints {@code json} with {@code --json}, else runs {@code human}. */
  void emit(JsonNode json, Consumer<PrintStream> human) {
    if (json()) {
      out.println(write(json));
    } else {
      human.accept(out);
    }
  }

  /** Prints one JSON line per event with {@code --json} (streams like watch), else the text. */
  void event(JsonNode json, String human) {
    if (json()) {
      out.println(write(json));
    } else {
      out.println(human);
    }
    out.flush();
  }

  ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** The refusal contract: one line on stderr, and the same as JSON on stdout with --json. */
  void refuse(FlowsException e) {
    err.println("error " + Database.oneLine(e.oneLine()));
    if (json()) {
      ObjectNode error = JSON.createObjectNode();
      error.put("code", e.code().wire());
      error.put("message", Database.oneLine(e.getMessage()));
      error.put("place", e.place().orElse(""));
      error.put("fix", e.fix().orElse(""));
      error.put("retryable", e.retryable());
      ObjectNode root = JSON.createObjectNode();
      root.set("error", error);
      out.println(write(root));
    }
    if (debug()) {
      e.printStackTrace(err);
    }
  }

  static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree that cannot be written", e);
    }
  }

  @Override
  public void close() {
    database = null;
  }
}
