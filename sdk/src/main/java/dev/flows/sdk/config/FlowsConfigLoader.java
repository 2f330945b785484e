package dev.flows.sdk.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.json.StrictJson;
import dev.flows.kernel.json.StrictJson.Place;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpAuthJson;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.sdk.TaskUse;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Finds and parses {@code flows.json}, fail-closed: an unknown key, a wrong type, both transport
 * shapes or neither is refused {@code config_invalid} with the file, a JSON pointer and the fix.
 * Secrets never appear in the file, only the names of the environment variables holding them.
 */
public final class FlowsConfigLoader {
  public static final String FILE_NAME = "flows.json";
  private static final ObjectMapper MAPPER = Jackson.mapper();
  static final Pattern ENV_NAME = McpAuthJson.ENV_NAME;
  static final Pattern SERVER_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

  private FlowsConfigLoader() {}

  /** The nearest {@code flows.json} walking up from {@code start} (a file or a directory). */
  public static Optional<Path> find(Path start) {
    Path dir = start.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      dir = dir.getParent();
    }
    for (Path d = dir; d != null; d = d.getParent()) {
      Path candidate = d.resolve(FILE_NAME);
      if (Files.isRegularFile(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Loads the nearest configuration; no file means no servers. */
  public static FlowsConfig loadNearest(Path start) {
    return find(start).map(FlowsConfigLoader::load).orElseGet(FlowsConfig::empty);
  }

  public static FlowsConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "cannot read " + file + ": " + e.getMessage(),
          file.toString(),
          "make the file readable");
    }
    return parse(file, text);
  }

  public static FlowsConfig parse(Path file, String text) {
    JsonNode root;
    try {
      root = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new Walker(file)
          .refuse(
              "",
              "is not valid JSON: " + e.getOriginalMessage(),
              "fix the JSON syntax near line " + e.getLocation().getLineNr());
    }
    Walker w = new Walker(file);
    w.object(root, "");
    w.onlyKeys(root, "", Set.of("mcp", "models", "secrets", "limits"));
    Map<String, ServerEntry> servers = new LinkedHashMap<>();
    JsonNode mcp = root.path("mcp");
    if (!mcp.isMissingNode()) {
      w.object(mcp, "/mcp");
      for (Iterator<Map.Entry<String, JsonNode>> it = mcp.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String ptr = "/mcp/" + Walker.escape(e.getKey());
        if (!SERVER_NAME.matcher(e.getKey()).matches()) {
          throw w.refuse(
              ptr,
              "server name '" + e.getKey() + "' is not allowed",
              "use letters, digits, _ and - (starting with a letter, at most 64)");
        }
        servers.put(e.getKey(), server(w, e.getKey(), e.getValue(), ptr));
      }
    }
    return new FlowsConfig(
        Optional.of(file),
        servers,
        ModelEntries.parse(w, root.path("models")),
        SecretEntries.keys(w, root.path("secrets")),
        LimitEntries.parse(w, root.path("limits")));
  }

  private static ServerEntry server(Walker w, String name, JsonNode n, String ptr) {
    w.object(n, ptr);
    boolean stdio = n.has("command");
    boolean http = n.has("url");
    if (stdio == http) {
      throw w.refuse(
          ptr,
          stdio ? "declares both \"command\" (stdio) and \"url\" (http)" : "declares no transport",
          "give exactly one of \"command\" (a local stdio server) or \"url\" (Streamable HTTP)");
    }
    boolean idem = w.optBool(n, ptr, "idempotencyKeys", false);
    McpProtocol protocol = protocol(w, n, ptr);
    Optional<TaskUse> tasks = tasks(w, n, ptr);
    McpServerConfig config =
        stdio ? stdio(w, name, n, ptr, protocol) : http(w, name, n, ptr, protocol);
    return new ServerEntry(
        config.withMaxResultBytes(maxResultBytes(w, n, ptr)),
        idem,
        tasks,
        SecretEntries.marks(w, n, ptr));
  }

  /** {@code "limits": {"maxResultBytes": N}}: this server's largest message, else the worker's. */
  private static java.util.OptionalInt maxResultBytes(Walker w, JsonNode n, String ptr) {
    if (!n.has("limits")) {
      return java.util.OptionalInt.empty();
    }
    JsonNode limits = n.get("limits");
    w.object(limits, ptr + "/limits");
    w.onlyKeys(limits, ptr + "/limits", Set.of("maxResultBytes"));
    JsonNode max = limits.path("maxResultBytes");
    if (max.isMissingNode()) {
      return java.util.OptionalInt.empty();
    }
    if (!max.canConvertToInt()
        || !max.isIntegralNumber()
        || max.asInt() < McpClientConfig.MIN_RESULT_BYTES) {
      throw w.refuse(
          ptr + "/limits/maxResultBytes",
          "is not a byte count from " + McpClientConfig.MIN_RESULT_BYTES + " to 2147483647",
          "give the largest answer this server may send, in bytes (default "
              + McpClientConfig.DEFAULT_MAX_RESULT_BYTES
              + ")");
    }
    return java.util.OptionalInt.of(max.asInt());
  }

  private static McpProtocol protocol(Walker w, JsonNode n, String ptr) {
    if (!n.has("protocol")) {
      return McpProtocol.AUTO;
    }
    String p = w.string(n, ptr, "protocol");
    return McpProtocol.fromWire(p)
        .orElseThrow(
            () ->
                w.refuse(
                    ptr + "/protocol",
                    "unknown MCP protocol revision '" + p + "'",
                    "use one of " + String.join(", ", McpProtocol.wires())));
  }

  private static Optional<TaskUse> tasks(Walker w, JsonNode n, String ptr) {
    Optional<String> use =
        n.has("tasks") ? Optional.of(w.string(n, ptr, "tasks")) : Optional.empty();
    Optional<TaskUse> tasks = use.flatMap(TaskUse::fromWire);
    if (use.isPresent() && tasks.isEmpty()) {
      throw w.refuse(
          ptr + "/tasks",
          "unknown task use '" + use.get() + "'",
          "use one of automatic, required, forbidden");
    }
    return tasks;
  }

  private static McpServerConfig stdio(
      Walker w, String name, JsonNode n, String ptr, McpProtocol protocol) {
    w.onlyKeys(
        n,
        ptr,
        Set.of(
            "command",
            "args",
            "env",
            "setEnv",
            "cwd",
            "idempotencyKeys",
            "protocol",
            "tasks",
            "limits",
            "secrets"));
    String command = w.string(n, ptr, "command");
    if (command.isBlank()) {
      throw w.refuse(ptr + "/command", "is empty", "name the program to start");
    }
    List<String> args = w.optStrings(n, ptr, "args");
    List<String> env = envNames(w, w.optStrings(n, ptr, "env"), ptr);
    Map<String, String> setEnv = w.optStringMap(n, ptr, "setEnv");
    for (String k : setEnv.keySet()) {
      if (!ENV_NAME.matcher(k).matches()) {
        throw w.refuse(
            ptr + "/setEnv/" + Walker.escape(k),
            "'" + k + "' is not an environment variable name",
            "use ^[A-Za-z_][A-Za-z0-9_]*$");
      }
    }
    Optional<String> cwd =
        n.has("cwd")
            ? Optional.of(
                w.file
                    .toAbsolutePath()
                    .getParent()
                    .resolve(w.string(n, ptr, "cwd"))
                    .normalize()
                    .toString())
            : Optional.empty();
    return new McpServerConfig.Stdio(name, command, args, env, setEnv, cwd, protocol);
  }

  private static List<String> envNames(Walker w, List<String> env, String ptr) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < env.size(); i++) {
      String v = env.get(i);
      if (!ENV_NAME.matcher(v).matches()) {
        throw w.refuse(
            ptr + "/env/" + i,
            "'" + v + "' is not an environment variable name",
            "list names (^[A-Za-z_][A-Za-z0-9_]*$) to copy from the parent environment");
      }
      if (!seen.add(v)) {
        throw w.refuse(ptr + "/env/" + i, "'" + v + "' is listed twice", "list each name once");
      }
    }
    return env;
  }

  private static McpServerConfig http(
      Walker w, String name, JsonNode n, String ptr, McpProtocol protocol) {
    w.onlyKeys(
        n,
        ptr,
        Set.of(
            "url", "headers", "auth", "idempotencyKeys", "protocol", "tasks", "limits", "secrets"));
    URI url = w.url(w.string(n, ptr, "url"), ptr + "/url");
    Map<String, String> headers = w.optStringMap(n, ptr, "headers");
    McpAuth auth =
        n.has("auth")
            ? McpAuthJson.readUserForm(n.get("auth"), ptr + "/auth", w)
            : new McpAuth.None();
    return new McpServerConfig.Http(name, url, headers, auth, protocol);
  }

  static URI httpUrl(Walker w, String s, String ptr) {
    URI u;
    try {
      u = new URI(s);
    } catch (URISyntaxException e) {
      throw w.refuse(ptr, "is not a URL: " + e.getReason(), "write e.g. http://127.0.0.1:8080/mcp");
    }
    if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) {
      throw w.refuse(ptr, "must be http or https", "write e.g. https://mcp.example.com/mcp");
    }
    if (u.getHost() == null) {
      throw w.refuse(ptr, "has no host", "write e.g. https://mcp.example.com/mcp");
    }
    if (u.getUserInfo() != null) {
      throw w.refuse(
          ptr,
          "must not carry credentials",
          "remove user:password@ and use \"auth\" with an environment variable");
    }
    if (u.getFragment() != null) {
      throw w.refuse(ptr, "must not have a #fragment", "remove the fragment");
    }
    return u;
  }

  /** {@code key}'s value, the name of an environment variable (the auth codec's one rule). */
  static String envName(Walker w, JsonNode n, String ptr, String key) {
    return McpAuthJson.envName(w, n, ptr, key);
  }

  /**
   * Typed reads with pointers through the kernel's strict reader; every refusal names the file and
   * the place.
   */
  static final class Walker implements McpAuthJson.UserForm {
    final Path file;
    private final StrictJson json =
        new StrictJson((place, problem) -> ConfigProblems.refusal(this, place, problem));

    Walker(Path file) {
      this.file = file;
    }

    static String escape(String key) {
      return key.replace("~", "~0").replace("/", "~1");
    }

    @Override
    public StrictJson json() {
      return json;
    }

    @Override
    public URI url(String value, String pointer) {
      return httpUrl(this, value, pointer);
    }

    @Override
    public FlowsException refuse(String pointer, String problem, String fix) {
      String where = file + "#" + (pointer.isEmpty() ? "/" : pointer);
      return new FlowsException(ErrorCode.CONFIG_INVALID, FILE_NAME + " " + problem, where, fix);
    }

    void object(JsonNode n, String ptr) {
      json.object(n, Place.at(ptr));
    }

    void onlyKeys(JsonNode n, String ptr, Set<String> allowed) {
      json.onlyFields(n, ptr, allowed);
    }

    String string(JsonNode n, String ptr, String key) {
      return json.string(n, ptr, key);
    }

    boolean optBool(JsonNode n, String ptr, String key, boolean dflt) {
      return json.optionalBoolean(n, ptr, key).orElse(dflt);
    }

    List<String> optStrings(JsonNode n, String ptr, String key) {
      return json.optionalStrings(n, ptr, key).orElse(List.of());
    }

    Map<String, String> optStringMap(JsonNode n, String ptr, String key) {
      return json.optionalStringMap(n, ptr, key).orElse(Map.of());
    }
  }
}
