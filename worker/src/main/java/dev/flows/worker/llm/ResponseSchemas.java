package dev.flows.worker.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.llm.LlmRequest;
import dev.langchain4j.internal.JsonSchemaElementUtils;

/**
 * The JSON schema of a record (or a class with public fields) for structured output, made by
 * LangChain4j's own generator: the schema its AI services send for the same type.
 */
public final class ResponseSchemas {
  private ResponseSchemas() {}

  public static LlmRequest.ResponseSchema of(Class<?> type) {
    JsonNode schema =
        Jackson.mapper()
            .valueToTree(
                JsonSchemaElementUtils.toMap(JsonSchemaElementUtils.jsonSchemaElementFrom(type)));
    return new LlmRequest.ResponseSchema(type.getSimpleName(), schema);
  }
}
