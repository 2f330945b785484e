package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.RunId;

/**
 * The context a flow body works through. Every call here is journaled: on replay it answers from
 * the journal instead of doing the work again.
 */
public interface Ctx {
  /** The root run this body belongs to. */
  RunId runId();

  /** The flow's input as given at start. */
  JsonNode input();

  /**
   * A server the header declares in {@code tools.mcp}. Naming an undeclared server fails with
   * {@code mcp_undeclared_server} ({@code flows check} finds it before anything runs).
   */
  McpServer mcp(String server);

  /**
   * A memoized in-process step: {@code body} runs once, its JSON result is journaled, and a replay
   * returns the journaled result without running it.
   */
  JsonNode step(String name, StepBody<?> body);

  /** As {@link #step(String, StepBody)}, converting the result to {@code type}. */
  <T> T step(String name, Class<T> type, StepBody<T> body);

  /** A deterministic child run executing {@code argv} (no shell). */
  JsonNode run(String... argv);

  /** A deterministic child run executing {@code command} with {@code /bin/sh -c}. */
  JsonNode sh(String command);

  /** A server handle: {@code f.mcp("stripe").tool("create_customer").call(args)}. */
  interface McpServer {
    McpTool tool(String name);
  }

  /** A tool handle. */
  interface McpTool {
    /**
     * Calls the tool as a durable effect and returns its result. {@code arguments} is a JSON object
     * or anything Jackson turns into one (a Map, a record).
     */
    McpResult call(Object arguments);
  }

  /** The body of a memoized step. */
  @FunctionalInterface
  interface StepBody<T> {
    T get() throws Exception;
  }
}
