package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.Jackson;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;

/**
 * A flow's input and output types, read from its class's declaration ({@code implements Flow<Order,
 * Receipt>}), and the one place a typed value becomes the JSON the journal holds and back. A class
 * that names no types ({@code Flow<JsonNode, JsonNode>} or a raw one) works on JSON.
 */
public final class FlowTypes {
  private static final ObjectMapper MAPPER = Jackson.mapper();
  static final JavaType JSON = MAPPER.constructType(JsonNode.class);

  private FlowTypes() {}

  /** Runs {@code flow}'s body on the run's JSON input and answers its output as JSON. */
  @SuppressWarnings("unchecked")
  static JsonNode run(Flow<?, ?> flow, Ctx f, JsonNode input) throws Exception {
    Object in = read(input, input(flow.getClass()), "the input of flow " + flow.header().name());
    return write(((Flow<Object, ?>) flow).run(f, in));
  }

  static JavaType input(Class<?> flowClass) {
    return parameter(flowClass, 0);
  }

  public static JavaType output(Class<?> flowClass) {
    return parameter(flowClass, 1);
  }

  private static JavaType parameter(Class<?> flowClass, int index) {
    JavaType[] p = MAPPER.constructType(flowClass).findTypeParameters(Flow.class);
    if (p == null || p.length != 2 || p[index].getRawClass() == Object.class) {
      return JSON;
    }
    return p[index];
  }

  /**
   * {@code node} as a {@code type}; {@code invalid_input} naming {@code what} when it does not fit.
   */
  public static <T> T read(JsonNode node, JavaType type, String what) {
    if (type.getRawClass().isInstance(node)) {
      @SuppressWarnings("unchecked")
      T same = (T) node;
      return same;
    }
    try {
      return MAPPER.convertValue(node, type);
    } catch (IllegalArgumentException e) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          what + " is not a " + type.getRawClass().getSimpleName() + ": " + e.getMessage(),
          what,
          "give JSON that fits " + type.getRawClass().getName());
    }
  }

  static <T> T read(JsonNode node, Class<T> type, String what) {
    return read(node, MAPPER.constructType(type), what);
  }

  /** {@code value} as JSON (null as JSON null). */
  public static JsonNode write(Object value) {
    if (value instanceof JsonNode j) {
      return j;
    }
    JsonNode j = MAPPER.valueToTree(value);
    return j == null ? NullNode.getInstance() : j;
  }
}
