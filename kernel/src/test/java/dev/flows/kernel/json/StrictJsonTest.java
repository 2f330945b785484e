package dev.flows.kernel.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.StrictJson.Expected;
import dev.flows.kernel.json.StrictJson.Place;
import dev.flows.kernel.json.StrictJson.Problem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StrictJsonTest {
  /** A refusal that carries the place and the problem out, so a test asserts on both. */
  static final class Refused extends RuntimeException {
    final transient Place place;
    final transient Problem problem;

    Refused(Place place, Problem problem) {
      super(place.pointer() + " " + problem);
      this.place = place;
      this.problem = problem;
    }
  }

  private final StrictJson json = new StrictJson(Refused::new);

  private static JsonNode tree(String text) throws Exception {
    return Jackson.mapper().readTree(text);
  }

  private static Refused refusal(Runnable read) {
    try {
      read.run();
    } catch (Refused r) {
      return r;
    }
    throw new AssertionError("not refused");
  }

  @Test
  void anUnknownFieldIsRefusedAtItsPointerWithTheAllowedFieldsInTheCallersOrder() throws Exception {
    JsonNode o = tree("{\"b\":1,\"a/x\":2}");
    Refused r = refusal(() -> json.onlyFields(o, "/mcp", List.of("b", "c")));
    assertThat(r.place.pointer()).isEqualTo("/mcp/a~1x");
    assertThat(r.problem).isEqualTo(new Problem.UnknownField("a/x", List.of("b", "c")));
  }

  @Test
  void aMissingRequiredFieldIsRefusedWithTheShapeExpected() throws Exception {
    JsonNode o = tree("{}");
    Refused r = refusal(() -> json.string(o, "/s", "name"));
    assertThat(r.place).isEqualTo(Place.field("/s", "name"));
    assertThat(r.problem).isEqualTo(new Problem.Missing(Expected.STRING));
  }

  @Test
  void aValueOfTheWrongShapeIsRefusedWithTheValueFound() throws Exception {
    JsonNode o = tree("{\"n\":3,\"b\":\"yes\",\"o\":[]}");
    assertThat(refusal(() -> json.string(o, "", "n")).problem)
        .isEqualTo(new Problem.WrongType(o.get("n"), Expected.STRING));
    assertThat(refusal(() -> json.optionalBoolean(o, "", "b")).problem)
        .isEqualTo(new Problem.WrongType(o.get("b"), Expected.BOOLEAN));
    assertThat(refusal(() -> json.object(o, "", "o")).problem)
        .isEqualTo(new Problem.WrongType(o.get("o"), Expected.OBJECT));
    assertThat(refusal(() -> json.object(o.get("n"), Place.at("/x"))).place.pointer())
        .isEqualTo("/x");
  }

  @Test
  void aContainerWithANonStringElementIsRefusedNamingTheElement() throws Exception {
    JsonNode o = tree("{\"a\":[\"x\",2],\"m\":{\"k\":\"v\",\"j\":true}}");
    Refused inArray = refusal(() -> json.optionalStrings(o, "/p", "a"));
    assertThat(inArray.place.pointer()).isEqualTo("/p/a");
    assertThat(inArray.problem)
        .isEqualTo(new Problem.WrongElement("1", o.get("a").get(1), Expected.STRING_ARRAY));
    Refused inMap = refusal(() -> json.optionalStringMap(o, "/p", "m"));
    assertThat(inMap.problem)
        .isEqualTo(new Problem.WrongElement("j", o.get("m").get("j"), Expected.STRING_MAP));
  }

  @Test
  void wellFormedFieldsReadAndAbsentOptionalOnesAreEmpty() throws Exception {
    JsonNode o = tree("{\"s\":\"v\",\"b\":true,\"a\":[\"x\",\"y\"],\"m\":{\"k\":\"v\"}}");
    json.onlyFields(o, "", List.of("s", "b", "a", "m"));
    assertThat(json.string(o, "", "s")).isEqualTo("v");
    assertThat(json.optionalBoolean(o, "", "b")).contains(true);
    assertThat(json.optionalStrings(o, "", "a")).contains(List.of("x", "y"));
    assertThat(json.optionalStringMap(o, "", "m")).contains(Map.of("k", "v"));
    assertThat(json.optionalString(o, "", "absent")).isEmpty();
    assertThat(json.optionalBoolean(o, "", "absent")).isEmpty();
    assertThatThrownBy(() -> json.required(o, "", "absent", Expected.VALUE))
        .isInstanceOf(Refused.class);
  }
}
