package dev.flows.spring;

import dev.flows.sdk.FlowsError;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A refusal of flows that stopped the application (a DataSource that is not Postgres, a schema
 * behind this build, a flow declaring an MCP server no one gave) is reported as its one line, code
 * first, and its fix: no stack trace to read through.
 */
public class FlowsFailureAnalyzer extends AbstractFailureAnalyzer<FlowsError> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, FlowsError cause) {
    return new FailureAnalysis(
        cause.oneLine(),
        cause.fix().orElse("see its code in SURFACE.md, \"Refusal codes\""),
        cause);
  }
}
