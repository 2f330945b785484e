package dev.flows.ops.bench;

import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Flow;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Engines as a deployment would assemble them: product defaults except lease and capacity. */
final class Engines {
  static final Duration STOP_GRACE = Duration.ofSeconds(1);

  private Engines() {}

  static FlowsEngine engine(Journal journal, int capacity, Duration lease) {
    return engine(journal, capacity, lease, WorkerConfig.DEFAULT_RECONCILE_INTERVAL);
  }

  static FlowsEngine engine(
      Journal journal, int capacity, Duration lease, Duration reconcileInterval) {
    return engine(journal, capacity, lease, reconcileInterval, McpClientConfig.DEFAULTS);
  }

  /**
   * Timer-driven claim polls and reconciles are transactions on no call's path, and their number
   * depends on how long a run lasts; counting commits per call, the engine polls only once a minute
   * (longer than any counted run) and is woken by its notifications as always.
   */
  static final Duration QUIET_INTERVAL = Duration.ofMinutes(1);

  /** An engine whose timers stay quiet while commits are counted ({@link #QUIET_INTERVAL}). */
  static FlowsEngine quiet(Journal journal, int capacity, Duration lease) {
    return build(
        journal,
        WorkerConfig.defaults().toBuilder()
            .capacity(capacity)
            .defaultLease(lease)
            .pollInterval(QUIET_INTERVAL)
            .reconcileInterval(QUIET_INTERVAL)
            .stopGrace(STOP_GRACE)
            .build(),
        McpClientConfig.DEFAULTS);
  }

  static FlowsEngine engine(
      Journal journal,
      int capacity,
      Duration lease,
      Duration reconcileInterval,
      McpClientConfig mcpLimits) {
    return build(
        journal,
        WorkerConfig.defaults().toBuilder()
            .capacity(capacity)
            .defaultLease(lease)
            .reconcileInterval(reconcileInterval)
            // Only so the benchmark's own stops are quick; it never changes a measurement.
            .stopGrace(STOP_GRACE)
            .build(),
        mcpLimits);
  }

  private static FlowsEngine build(
      Journal journal, WorkerConfig config, McpClientConfig mcpLimits) {
    FlowsEngine engine =
        new FlowsEngine(
            journal, config, SdkConfig.DEFAULTS, mcpLimits, McpCredentials.fromEnvironment());
    for (Flow f : BenchFlows.all()) {
      engine.register(f);
    }
    return engine;
  }

  static LoadedFlow loaded(Flow flow) {
    return new LoadedFlow(
        flow,
        new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
        Set.of(),
        Path.of("."));
  }

  /** What preflight would freeze for the two no-op servers: both honour idempotency keys. */
  static Inventory inventory(McpServerConfig.Stdio stdio, Optional<URI> http) {
    var servers =
        new java.util.ArrayList<>(
            List.of(
                new Inventory.Server(
                    stdio, true, List.of(tool(STDIO_NAME, "noop"), tool(STDIO_NAME, "sleep")))));
    http.ifPresent(
        u ->
            servers.add(
                new Inventory.Server(
                    new McpServerConfig.Http(BenchFlows.HTTP, u, Map.of(), new McpAuth.None()),
                    true,
                    List.of(tool(BenchFlows.HTTP, "noop")))));
    return Inventory.of(servers);
  }

  /** What preflight would freeze for the task test server at {@code url}: its {@code slow} tool. */
  static Inventory taskInventory(URI url) {
    return Inventory.of(
        List.of(
            new Inventory.Server(
                new McpServerConfig.Http(BenchFlows.TASKS, url, Map.of(), new McpAuth.None()),
                true,
                List.of(tool(BenchFlows.TASKS, "slow")))));
  }

  private static final String STDIO_NAME = BenchFlows.STDIO;

  static ToolDescriptor tool(String server, String name) {
    return new ToolDescriptor(
        server,
        name,
        Optional.empty(),
        Optional.empty(),
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(),
        Optional.empty(),
        ToolDescriptor.ToolHints.NONE);
  }
}
