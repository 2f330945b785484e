package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An authored flow. The body runs as the root run's agent step under a lease; if its worker dies
 * another worker runs it again from the top, and every call that already completed answers from the
 * journal. So the body must be deterministic between {@code f} calls: the same input and the same
 * journaled answers must lead to the same next call.
 */
public interface Flow {
  FlowHeader header();

  JsonNode run(Ctx f, JsonNode input) throws Exception;
}
