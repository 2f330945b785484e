package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Schedule;
import java.time.Duration;

/** A flow for schedule tests: answers its input; its header starts it every second. */
public class TickFlow implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("tick")
        .version("1")
        .schedule(Schedule.every(Duration.ofSeconds(1)).overlap("allow-all"))
        .build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    return input;
  }
}
