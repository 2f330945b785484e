package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.config.ServerEntry;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.PreflightException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code flows demo}: the example triage flow against the example servers (tickets over stdio,
 * payments over Streamable HTTP with a bearer token), on the embedded database by default.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Run the example support-ticket triage flow against the example MCP servers, print its"
            + " receipts, and show what to try next.")
final class DemoCommand implements Callable<Integer> {
  static final String ROOT_VARIABLE = "FLOWS_ROOT";
  static final String FLOW = "flows-examples/flows/triage.flow.java";

  private static final int MAX_PORT = 65_535;

  private final Session s;

  @Option(
      names = "--protocol",
      paramLabel = "REVISION",
      description =
          "The MCP revision to speak to the example servers, which serve both: auto (default:"
              + " 2026-07-28 after server/discover), 2026-07-28, 2025-11-25 or 2025-06-18.")
  String protocol = McpProtocol.AUTO.wire();

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description =
          "Port of the example payments server the demo starts (default: the one in"
              + " flows-examples/flows/flows.json, or any free port when that one is taken; 0: any"
              + " free port).")
  Integer port;

  @Option(
      names = "--agent",
      description =
          "Run the example agent instead (flows-examples/flows/agent.flow.java): a model, the"
              + " scripted one of flows-examples/models/agent.json (offline), triages the ticket"
              + " with the tickets and payments tools; the demo approves its refund as the"
              + " operator (journaled by 'demo') and prints the turns, tool calls and answer.")
  boolean agent;

  DemoCommand(Session s) {
    this.s = s;
  }

  /** The checkout the launcher runs from: $FLOWS_ROOT, else up from the working directory. */
  Path root() {
    String env = s.env().get(ROOT_VARIABLE);
    if (env != null && Files.isRegularFile(Path.of(env, FLOW))) {
      return Path.of(env);
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(FLOW))) {
        return d;
      }
    }
    throw new FlowsException(
        ErrorCode.FLOW_NOT_FOUND,
        "cannot find " + FLOW,
        "flows demo",
        "run ./flows demo from the flows checkout (or set " + ROOT_VARIABLE + ")");
  }

  /** The revision asked for, or a refusal naming the ones there are. */
  McpProtocol protocol() {
    return McpProtocol.fromWire(protocol)
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.INVALID_INPUT,
                    "unknown MCP revision '" + protocol + "'",
                    "flows demo --protocol",
                    "use one of " + String.join(", ", McpProtocol.wires())));
  }

  /** The example servers' flows.json with each server pinned to {@code p} (unless auto). */
  static FlowsConfig pinned(FlowsConfig shipped, McpProtocol p) {
    if (p == McpProtocol.AUTO) {
      return shipped;
    }
    Map<String, ServerEntry> mcp = new java.util.LinkedHashMap<>();
    shipped
        .mcp()
        .forEach(
            (name, e) ->
                mcp.put(
                    name,
                    new ServerEntry(
                        switch (e.config()) {
                          case McpServerConfig.Stdio st -> st.withProtocol(p);
                          case McpServerConfig.Http h -> h.withProtocol(p);
                        },
                        e.honoursIdempotencyKeys())));
    return new FlowsConfig(shipped.file(), mcp, shipped.models());
  }

  /**
   * The example payments server on {@code --port}, else on {@code shipped}'s port, else (that one
   * taken) on any free port: a demo runs beside a tour's payments server or anything else there.
   */
  private DemoPaymentsServer startPayments(Path root, URI shipped, String token) {
    if (port != null && (port < 0 || port > MAX_PORT)) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "no port " + port,
          "flows demo --port",
          "give a port from 0 to " + MAX_PORT + " (0 picks a free one)");
    }
    int wanted = port != null ? port : shipped.getPort();
    try {
      return DemoPaymentsServer.start(root, wanted, token);
    } catch (FlowsException taken) {
      if (port != null) {
        throw taken;
      }
      DemoPaymentsServer any = DemoPaymentsServer.start(root, 0, token);
      s.notice(
          "flows demo: port "
              + wanted
              + " is taken; the example payments server uses "
              + any.endpoint()
              + " instead (`flows demo --port PORT` picks one)");
      return any;
    }
  }

  /** {@code servers} with the payments server at {@code url} (where the demo started it). */
  static FlowsConfig withPaymentsAt(FlowsConfig servers, URI url) {
    Map<String, ServerEntry> mcp = new java.util.LinkedHashMap<>(servers.mcp());
    ServerEntry payments = mcp.get("payments");
    McpServerConfig.Http h = (McpServerConfig.Http) payments.config();
    mcp.put(
        "payments",
        new ServerEntry(
            new McpServerConfig.Http(h.name(), url, h.headers(), h.auth(), h.protocol()),
            payments.honoursIdempotencyKeys()));
    return new FlowsConfig(servers.file(), mcp, servers.models());
  }

  @Override
  public Integer call() throws Exception {
    McpProtocol revision = protocol();
    Path root = root();
    Path flowFile = root.resolve(FLOW);
    FlowsConfig shipped = pinned(FlowsConfigLoader.loadNearest(flowFile), revision);
    ServerEntry payments = shipped.server("payments").orElseThrow();
    URI url = ((McpServerConfig.Http) payments.config()).url();
    byte[] secret = new byte[16];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    // The token exists only in this process: the server is given it, and so is the client.
    McpCredentials credentials =
        new McpCredentials(
            name -> DemoPaymentsServer.TOKEN_ENV.equals(name) ? token : System.getenv(name),
            Map.of(),
            Map.of(),
            Map.of());
    DemoPaymentsServer server = startPayments(root, url, token);
    FlowsConfig servers = withPaymentsAt(shipped, server.endpoint());
    s.notice(
        "flows demo: payments server (Streamable HTTP, bearer auth) on "
            + server.endpoint()
            + "; MCP revision "
            + revision.wire());
    try (server;
        OpsTelemetry telemetry = EngineSupport.telemetry(s);
        FlowsEngine engine =
            EngineSupport.engine(s.journal(EngineSupport.poolFor(4)), 4, credentials, s.limits())) {
      if (agent) {
        return new DemoAgent(s, engine, root).run(servers);
      }
      LoadedFlow flow = LoadedFlow.load(flowFile.toString(), flowFile.getParent());
      JsonNode input =
          s.object()
              .put("email", "ada@example.com")
              .put("subject", "Charged twice")
              .put("message", "I was charged twice for my subscription, please refund");
      RunRef id;
      try {
        id = engine.admit(flow, input, Optional.empty(), engine.preflight(flow, servers)).runId();
      } catch (PreflightException e) {
        return EngineSupport.refusePreflight(s, e);
      }
      s.notice("flows demo: started run " + id.value() + " (flow triage)");
      engine.startWorker();
      RunSnapshot end = new RunFollower(s, engine.journal(), id).untilSettled();
      report(engine, id, end);
      return RunsCommand.exitFor(end.status());
    }
  }

  /** Adds to {@code into} the receipt of each call run below {@code id}, in order; answers it. */
  static ArrayNode childReceipts(Journal journal, RunRef id, ArrayNode into) {
    for (RunRef child : journal.children(id)) {
      journal
          .run(child)
          .flatMap(c -> c.steps().getFirst().output())
          .filter(RunJson::isReceipt)
          .ifPresent(into::add);
    }
    return into;
  }

  /** The run's end: its status, its children's receipts, its output and what to try next. */
  private void report(FlowsEngine engine, RunRef id, RunSnapshot end) {
    ObjectNode summary = s.object();
    summary.put("type", "demo.end");
    summary.set("run", RunJson.summary(end));
    ArrayNode receipts = childReceipts(engine.journal(), id, summary.putArray("receipts"));
    end.steps().getFirst().output().ifPresent(o -> summary.set("output", o));
    s.emit(
        summary,
        p -> {
          p.println();
          p.println("run " + id.value() + " " + end.status().wire());
          p.println("receipts:");
          receipts.forEach(r -> p.println("  " + RunText.receiptText(r)));
          end.steps().getFirst().output().ifPresent(o -> p.println("output: " + o));
          p.println();
          p.println("next:");
          p.println("  ./flows runs list                 # the run, kept in the embedded database");
          p.println("  ./flows runs show " + id.value() + "   # steps, leases, effects, receipts");
          p.println("  ./flows check " + FLOW + "   # preflight only");
          p.println("  ./flows db status                 # where the journal lives");
        });
  }
}
