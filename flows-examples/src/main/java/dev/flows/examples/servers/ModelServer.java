package dev.flows.examples.servers;

import dev.flows.mcp.testkit.ScriptedModelServer;

/**
 * {@code bin/model-server SCRIPT.json [PORT]}: an OpenAI-compatible model server on 127.0.0.1 that
 * answers from a script of turns ({@link dev.flows.mcp.testkit.ScriptedModel}), so flows calling
 * models run offline. Prints {@code listening on http://127.0.0.1:PORT/v1}.
 */
public final class ModelServer {
  private ModelServer() {}

  public static void main(String[] args) throws Exception {
    ScriptedModelServer.main(args);
  }
}
