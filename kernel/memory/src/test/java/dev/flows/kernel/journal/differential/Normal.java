package dev.flows.kernel.journal.differential;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.spec.RunSpecJson;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One text for a journal's answer, equal for two answers exactly when they mean the same: records
 * by their components (so a field a record gains is compared without touching this class), JSON by
 * its canonical text (an int and a long holding 1 are the same number), sets and maps in sorted
 * order (their iteration order means nothing).
 */
public final class Normal {
  private Normal() {}

  public static String of(Object value) {
    return switch (value) {
      case null -> "null";
      case JsonNode json -> RunSpecJson.canonicalText(json);
      case Optional<?> o -> o.map(v -> "Some(" + of(v) + ")").orElse("None");
      case OptionalLong o -> o.isPresent() ? "Some(" + o.getAsLong() + ")" : "None";
      case Set<?> s ->
          s.stream().map(Normal::of).sorted().collect(Collectors.joining(",", "{", "}"));
      case Collection<?> c -> c.stream().map(Normal::of).collect(Collectors.joining(",", "[", "]"));
      case Map<?, ?> m ->
          m.entrySet().stream()
              .map(e -> of(e.getKey()) + "=" + of(e.getValue()))
              .sorted()
              .collect(Collectors.joining(",", "{", "}"));
      case Enum<?> e -> e.name();
      case Record r -> record(r);
      default -> value.toString();
    };
  }

  /** Each record class's component names and accessors, looked up once. */
  private static final ClassValue<List<Map.Entry<String, Method>>> COMPONENTS =
      new ClassValue<>() {
        @Override
        protected List<Map.Entry<String, Method>> computeValue(Class<?> type) {
          return Stream.of(type.getRecordComponents())
              .map(
                  c -> {
                    Method m = c.getAccessor();
                    m.setAccessible(true);
                    return Map.entry(c.getName(), m);
                  })
              .toList();
        }
      };

  private static String record(Record r) {
    StringBuilder out = new StringBuilder(r.getClass().getSimpleName()).append('(');
    List<Map.Entry<String, Method>> components = COMPONENTS.get(r.getClass());
    for (int i = 0; i < components.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      Map.Entry<String, Method> c = components.get(i);
      try {
        out.append(c.getKey()).append('=').append(of(c.getValue().invoke(r)));
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot read " + c.getKey() + " of " + r.getClass(), e);
      }
    }
    return out.append(')').toString();
  }
}
