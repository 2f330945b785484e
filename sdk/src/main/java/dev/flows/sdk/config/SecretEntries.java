package dev.flows.sdk.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.keys.SecretMarks;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The secret parts of a {@code flows.json}: the top-level {@code "secrets": {"keyEnv": NAME,
 * "oldKeyEnvs": [NAME…]}} (where the key is read) and a server's {@code "secrets": {"TOOL":
 * {"arguments": [POINTER…], "result": [POINTER…]}}} (what of its calls is secret). Refused {@code
 * config_invalid} with a pointer as the rest of the file is.
 */
final class SecretEntries {
  private SecretEntries() {}

  static Optional<FlowsConfig.SecretKeyEnvs> keys(FlowsConfigLoader.Walker w, JsonNode secrets) {
    if (secrets.isMissingNode()) {
      return Optional.empty();
    }
    w.object(secrets, "/secrets");
    w.onlyKeys(secrets, "/secrets", Set.of("keyEnv", "oldKeyEnvs"));
    String keyEnv = w.string(secrets, "/secrets", "keyEnv");
    List<String> old = w.optStrings(secrets, "/secrets", "oldKeyEnvs");
    envName(w, keyEnv, "/secrets/keyEnv");
    for (int i = 0; i < old.size(); i++) {
      envName(w, old.get(i), "/secrets/oldKeyEnvs/" + i);
    }
    return Optional.of(new FlowsConfig.SecretKeyEnvs(keyEnv, old));
  }

  private static void envName(FlowsConfigLoader.Walker w, String name, String ptr) {
    if (!FlowsConfigLoader.ENV_NAME.matcher(name).matches()) {
      throw w.refuse(
          ptr,
          "'" + name + "' is not an environment variable name",
          "name the variable that holds the key (^[A-Za-z_][A-Za-z0-9_]*$), never the key");
    }
  }

  /** A server's marks by tool name; {@code ptr} is the server's pointer. */
  static Map<String, SecretMarks> marks(FlowsConfigLoader.Walker w, JsonNode server, String ptr) {
    Map<String, SecretMarks> out = new LinkedHashMap<>();
    if (!server.has("secrets")) {
      return out;
    }
    JsonNode tools = server.get("secrets");
    w.object(tools, ptr + "/secrets");
    for (Iterator<Map.Entry<String, JsonNode>> it = tools.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String at = ptr + "/secrets/" + FlowsConfigLoader.Walker.escape(e.getKey());
      w.object(e.getValue(), at);
      w.onlyKeys(e.getValue(), at, Set.of("arguments", "result"));
      SecretMarks marks = SecretMarks.NONE;
      try {
        for (String p : w.optStrings(e.getValue(), at, "arguments")) {
          marks = marks.argument(p, at + "/arguments");
        }
        for (String p : w.optStrings(e.getValue(), at, "result")) {
          marks = marks.resultPart(p, at + "/result");
        }
      } catch (FlowsException bad) {
        throw w.refuse(at, bad.getMessage(), "give RFC 6901 pointers such as /card/number");
      }
      out.put(e.getKey(), marks);
    }
    return out;
  }
}
