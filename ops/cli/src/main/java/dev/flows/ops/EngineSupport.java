package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.PreflightException;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;

/** What run, worker and demo share: the engine over the session's journal, and refusals. */
final class EngineSupport {
  private EngineSupport() {}

  /** Connections for a worker of {@code capacity}: one per attempt, plus claim and reconcile. */
  static int poolFor(int capacity) {
    return capacity + 4;
  }

  static FlowsEngine engine(Journal journal, int capacity) {
    return engine(journal, capacity, McpCredentials.fromEnvironment());
  }

  static FlowsEngine engine(Journal journal, int capacity, McpCredentials credentials) {
    return engine(journal, capacity, credentials, PayloadLimits.DEFAULTS);
  }

  /**
   * An in-process worker of {@code capacity} bounding step outputs and receipts by {@code limits}.
   */
  static FlowsEngine engine(
      Journal journal, int capacity, McpCredentials credentials, PayloadLimits limits) {
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .capacity(capacity)
            .pollInterval(WorkerSettings.CLI_POLL)
            .payloadLimits(limits)
            .build();
    return engine(journal, config, credentials);
  }

  static FlowsEngine engine(Journal journal, WorkerConfig config, McpCredentials credentials) {
    return engine(journal, config, McpClientConfig.DEFAULTS, credentials);
  }

  static FlowsEngine engine(
      Journal journal, WorkerConfig config, McpClientConfig mcp, McpCredentials credentials) {
    FlowsEngine engine = new FlowsEngine(journal, config, SdkConfig.DEFAULTS, mcp, credentials);
    engine.registerServiceLoaded();
    return engine;
  }

  /**
   * The OpenTelemetry SDK of a command that runs work in-process ({@code run}, {@code runs rerun},
   * {@code demo}): installed when {@code OTEL_*} asks for it, as for {@code flows worker}; the
   * API's no-op otherwise. Close it after the engine, so the last spans are exported.
   */
  static OpsTelemetry telemetry(Session s) {
    return OpsTelemetry.start(s.env(), java.util.Optional.empty(), s.readyDatabase().dataSource());
  }

  /** Parses {@code --input}; malformed JSON is refused before anything else happens. */
  static JsonNode input(String text) {
    return json(text, "--input", "--input '{\"text\":\"hello\"}'");
  }

  /**
   * Parses a JSON argument ({@code {}} when absent); malformed JSON is refused naming {@code place}
   * (the option or parameter as the user typed it), with {@code example} in the fix.
   */
  static JsonNode json(String text, String place, String example) {
    if (text == null) {
      return Session.JSON.createObjectNode();
    }
    try {
      return Session.JSON.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          place + " is not valid JSON: " + e.getOriginalMessage(),
          place,
          "pass a JSON value, e.g. " + example);
    }
  }

  /**
   * Prints every problem preflight found (one line each, and one JSON document with --json);
   * answers the refusal exit code.
   */
  static int refusePreflight(Session s, PreflightException e) {
    if (s.json()) {
      ObjectNode root = s.object();
      ObjectNode error = root.putObject("error");
      error.put("code", e.code().wire()).put("message", e.getMessage());
      ArrayNode problems = error.putArray("problems");
      for (FlowsException p : e.problems()) {
        problems
            .addObject()
            .put("code", p.code().wire())
            .put("message", p.getMessage())
            .put("place", p.place().orElse(""))
            .put("fix", p.fix().orElse(""));
      }
      s.out().println(Session.write(root));
    }
    for (FlowsException p : e.problems()) {
      s.err().println("error " + p.oneLine());
    }
    return Exit.REFUSED;
  }
}
