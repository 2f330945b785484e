package dev.flows.mcp.client;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.ToolParamHeaderAnnotations;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tool-defined HTTP headers of a 2026-07-28 {@code tools/call} (SEP-2243: a property of the
 * tool's inputSchema marked {@code x-mcp-header: Name} is mirrored into {@code Mcp-Param-Name}),
 * for a call written out by hand. The values are computed as the SDK's own call path computes them
 * (its {@code ToolCatalog.paramHeaders}, not public): the arguments as the SDK's mapper converts
 * them, each annotation's property path followed through objects, no header when the value is
 * absent, null, an object or an array; an integer as its plain decimal digits, anything else as
 * {@code String.valueOf}. The transport encodes each value (base64 for non-ASCII, control
 * characters, edge whitespace or the sentinel) and prefixes the name, as for the SDK's calls.
 */
final class ParamHeaders {
  private static final TypeRef<Map<String, Object>> ARGUMENTS = new TypeRef<>() {};

  private ParamHeaders() {}

  /**
   * The header annotations of {@code tool}. A listing seen through the SDK holds only tools whose
   * annotations are valid (it leaves the others out, as the spec says), so all of them apply.
   */
  static List<ToolParamHeaderAnnotations.Annotation> of(McpSchema.Tool tool) {
    return ToolParamHeaderAnnotations.parse(tool).valid();
  }

  /** Header name (without {@code Mcp-Param-}) to its value before encoding. */
  static Map<String, String> values(
      List<ToolParamHeaderAnnotations.Annotation> annotations,
      Map<String, Object> arguments,
      McpJsonMapper json) {
    if (annotations.isEmpty()) {
      return Map.of();
    }
    Object args = json.convertValue(arguments, ARGUMENTS);
    Map<String, String> out = new LinkedHashMap<>();
    for (ToolParamHeaderAnnotations.Annotation a : annotations) {
      Object v = resolve(args, a.path());
      if (v == null || v instanceof Map<?, ?> || v instanceof List<?>) {
        continue;
      }
      out.put(a.name(), value(a.type(), v));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static Object resolve(Object root, List<String> path) {
    Object at = root;
    for (String step : path) {
      if (!(at instanceof Map<?, ?> m)) {
        return null;
      }
      at = m.get(step);
    }
    return at;
  }

  private static String value(ToolParamHeaderAnnotations.Type type, Object v) {
    if (type == ToolParamHeaderAnnotations.Type.INTEGER && v instanceof Number n) {
      BigDecimal d = decimal(n);
      if (d != null) {
        return d.stripTrailingZeros().toPlainString();
      }
    }
    return String.valueOf(v);
  }

  private static BigDecimal decimal(Number n) {
    return switch (n) {
      case BigDecimal d -> d;
      case BigInteger i -> new BigDecimal(i);
      case Double d -> Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
      case Float f -> Double.isFinite(f.doubleValue()) ? BigDecimal.valueOf(f.doubleValue()) : null;
      default -> BigDecimal.valueOf(n.longValue());
    };
  }
}
