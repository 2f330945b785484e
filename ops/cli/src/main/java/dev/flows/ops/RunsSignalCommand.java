package dev.flows.ops;

import static dev.flows.ops.RunsCommand.runId;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.SignalSent;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flows runs signal RUN NAME [PAYLOAD_JSON] [--key KEY]}: a signal to a run's body. */
@Command(
    name = "signal",
    mixinStandardHelpOptions = true,
    description =
        "Send signal NAME with PAYLOAD_JSON (default null) to a run: a body waiting in"
            + " f.awaitSignal(NAME, ...) gets it at once, a later wait gets it then (kept in order,"
            + " each delivered once). --key makes sending idempotent.")
final class RunsSignalCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN", description = "The run id.")
  String run;

  @Parameters(index = "1", paramLabel = "NAME", description = "The signal's name, e.g. approve.")
  String name;

  @Parameters(
      index = "2",
      arity = "0..1",
      paramLabel = "PAYLOAD_JSON",
      description = "The payload, a JSON value (default null).")
  String payload;

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description = "A second send with the same key to the run sends nothing.")
  String key;

  private final Session s;

  RunsSignalCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    RunRef id = runId(run);
    JsonNode body =
        payload == null
            ? NullNode.getInstance()
            : EngineSupport.json(payload, "PAYLOAD_JSON", "'{\"approved\":true}'");
    Journal journal = s.commandJournal();
    SignalSent sent = journal.sendSignal(id, name, body, Optional.ofNullable(key));
    ObjectNode out = s.object();
    out.put("runId", id.value());
    out.put("name", sent.name());
    out.put("seq", sent.seq());
    out.put("deduped", sent.deduped());
    s.emit(
        out,
        p ->
            p.println(
                sent.deduped()
                    ? "signal "
                        + sent.name()
                        + " #"
                        + sent.seq()
                        + " with key "
                        + key
                        + " was sent to run "
                        + id.value()
                        + " before; nothing sent"
                    : "signal " + sent.name() + " #" + sent.seq() + " sent to run " + id.value()));
    return Exit.SUCCESS;
  }
}
