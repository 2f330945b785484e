package dev.flows.testing;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.util.Map;

/** Sleeps 30 days between two charges. */
public class Sleeper implements Flow<String, String> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("sleeper").version("1").mcp("payments").build();
  }

  @Override
  public String run(Ctx f, String input) {
    f.mcp("payments").tool("charge").call(Map.of("order", input, "n", 1));
    f.sleep(Duration.ofDays(30));
    f.mcp("payments").tool("charge").call(Map.of("order", input, "n", 2));
    return "done " + input;
  }
}
