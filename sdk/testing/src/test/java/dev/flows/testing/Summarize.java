package dev.flows.testing;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;

/** Asks the model for a summary, then notes it on a ticket. */
public class Summarize implements Flow<String, String> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("summarize").version("1").mcp("tickets").models("fast").build();
  }

  @Override
  public String run(Ctx f, String ticket) {
    String summary =
        f.llm("fast").system("You summarize tickets.").user("summarize " + ticket).call().text();
    f.mcp("tickets").tool("note").call(Map.of("ticket", ticket, "text", summary));
    return summary;
  }
}
