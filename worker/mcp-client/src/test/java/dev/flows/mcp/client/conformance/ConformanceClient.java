package dev.flows.mcp.client.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpAuth.ClientAuth;
import dev.flows.kernel.mcp.McpAuth.ClientRegistration;
import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpAuth.SecretSource;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.client.HeadlessRedirectCompleter;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpPool;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The client the official conformance suite drives ({@code ops/conformance/client}): the server URL
 * is the last argument, the scenario is in {@code MCP_CONFORMANCE_SCENARIO}, credentials (when the
 * scenario has any) in {@code MCP_CONFORMANCE_CONTEXT}. It connects through the port, lists the
 * tools, calls each one with arguments made from its schema, and stops. Exit 0 when all went well.
 */
public final class ConformanceClient {
  /** The URL-based client id the suite's metadata-document scenario expects. */
  static final String CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

  static final String REDIRECT_URI = "http://localhost:3000/callback";

  private ConformanceClient() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: client <server-url>");
      System.exit(2);
    }
    URI url = URI.create(args[args.length - 1]);
    String scenario = System.getenv().getOrDefault("MCP_CONFORMANCE_SCENARIO", "");
    JsonNode context =
        new ObjectMapper().readTree(System.getenv().getOrDefault("MCP_CONFORMANCE_CONTEXT", "{}"));
    Map<String, Supplier<String>> secrets = new HashMap<>();
    context.fields().forEachRemaining(e -> secrets.put(e.getKey(), () -> e.getValue().asText()));
    McpCredentials credentials =
        new McpCredentials(
            n -> null,
            secrets,
            Map.of(),
            Map.of("headless", new HeadlessRedirectCompleter(Duration.ofSeconds(30))));
    McpAuth auth = auth(scenario, context);
    McpServerConfig server = new McpServerConfig.Http("conformance", url, Map.of(), auth);
    McpClientConfig limits = McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));
    int exit = 0;
    try (McpPool pool = new McpPool(List.of(server), limits, credentials, new ToolRegistry())) {
      // Unattended, like a worker: an elicitation is answered with the schema's defaults.
      pool.answerElicitationsWithDefaults();
      pool.connectAll().get(60, TimeUnit.SECONDS);
      McpTransportPort c = pool.connections().get("conformance");
      for (Map.Entry<String, Map<String, Object>> call : calls(c.tools(), context).entrySet()) {
        try {
          ToolCallResult r = c.callTool(call.getKey(), call.getValue()).get(60, TimeUnit.SECONDS);
          System.out.println(call.getKey() + " -> " + (r.isError() ? "error: " : "") + r.text());
        } catch (java.util.concurrent.ExecutionException e) {
          // A call the server refuses is the server's to judge; the run goes on.
          System.out.println(call.getKey() + " -> refused: " + e.getCause().getMessage());
        }
      }
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      System.err.println(cause instanceof McpException m ? m.oneLine() : "failed: " + cause);
      exit = 1;
    }
    System.exit(exit);
  }

  static McpAuth auth(String scenario, JsonNode context) {
    if (!scenario.startsWith("auth/")) {
      return new McpAuth.None();
    }
    OAuthGrant grant;
    if (context.has("idp_id_token")) {
      grant =
          new OAuthGrant.EnterpriseManaged(
              context.path("client_id").asText(),
              new ClientAuth.SecretBasic(new SecretSource.Provider("client_secret")),
              URI.create(context.path("idp_token_endpoint").asText()),
              new SecretSource.Provider("idp_id_token"));
    } else if (context.has("private_key_pem")) {
      grant =
          new OAuthGrant.ClientCredentials(
              context.path("client_id").asText(),
              new ClientAuth.PrivateKeyJwt(new SecretSource.Provider("private_key_pem")));
    } else if (scenario.contains("client-credentials")) {
      grant =
          new OAuthGrant.ClientCredentials(
              context.path("client_id").asText(),
              new ClientAuth.SecretBasic(new SecretSource.Provider("client_secret")));
    } else if (context.has("client_id")) {
      grant =
          new OAuthGrant.AuthorizationCode(
              new ClientRegistration.PreRegistered(
                  context.path("client_id").asText(),
                  context.has("client_secret")
                      ? new ClientAuth.SecretBasic(new SecretSource.Provider("client_secret"))
                      : new ClientAuth.NoSecret()),
              REDIRECT_URI,
              "headless");
    } else {
      grant =
          new OAuthGrant.AuthorizationCode(
              new ClientRegistration.MetadataDocument(CLIENT_METADATA_URL, "flows-conformance"),
              REDIRECT_URI,
              "headless");
    }
    return new McpAuth.OAuth(grant, List.of());
  }

  /**
   * The calls to make: the ones the scenario lists in its context ({@code toolCalls}), else an echo
   * of the other tool's input schema when the server offers {@code json_schema_echo} (the schema
   * must come back exactly as listed), else every tool with arguments from its schema.
   */
  static Map<String, Map<String, Object>> calls(List<ToolDescriptor> tools, JsonNode context) {
    Map<String, Map<String, Object>> calls = new java.util.LinkedHashMap<>();
    ObjectMapper json = new ObjectMapper();
    if (context.path("toolCalls").isArray()) {
      for (JsonNode call : context.get("toolCalls")) {
        @SuppressWarnings("unchecked")
        Map<String, Object> args = json.convertValue(call.path("arguments"), Map.class);
        calls.put(call.path("name").asText(), args);
      }
      return calls;
    }
    boolean echo = tools.stream().anyMatch(t -> t.name().equals("json_schema_echo"));
    for (ToolDescriptor tool : tools) {
      if (echo) {
        if (!tool.name().equals("json_schema_echo")) {
          Map<String, Object> args = new HashMap<>();
          args.put("schema", json.convertValue(tool.inputSchema(), Map.class));
          calls.put("json_schema_echo", args);
        }
      } else {
        calls.put(tool.name(), arguments(tool.inputSchema()));
      }
    }
    return calls;
  }

  /** Arguments that satisfy a simple schema: numbers 1, 2, ...; strings "test"; booleans true. */
  static Map<String, Object> arguments(JsonNode schema) {
    Map<String, Object> args = new HashMap<>();
    int n = 1;
    for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> p = it.next();
      switch (p.getValue().path("type").asText("string")) {
        case "number", "integer" -> args.put(p.getKey(), n++);
        case "boolean" -> args.put(p.getKey(), true);
        default -> args.put(p.getKey(), "test");
      }
    }
    return args;
  }
}
