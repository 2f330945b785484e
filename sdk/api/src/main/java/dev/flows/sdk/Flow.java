package dev.flows.sdk;

/**
 * An authored flow, taking an {@code I} and answering an {@code O}: records (or any type Jackson
 * reads and writes) travel as JSON through the journal; a flow working on raw JSON is a {@code
 * Flow<JsonNode, JsonNode>}. The body runs as the root run's agent step under a lease; if its
 * worker dies another worker runs it again from the top, and every call that already completed
 * answers from the journal. So the body must be deterministic between {@code f} calls: the same
 * input and the same journaled answers must lead to the same next call.
 *
 * <p>{@code I} and {@code O} are read from the class's declaration ({@code class Refund implements
 * Flow<RefundRequest, Refunded>}): a run's JSON input is read as an {@code I} (one that does not
 * fit fails the run {@code invalid_input}), and the {@code O} the body answers is written as the
 * run's JSON output.
 *
 * @param <I> the input
 * @param <O> the output
 */
public interface Flow<I, O> {
  FlowHeader header();

  O run(Ctx f, I input) throws Exception;
}
