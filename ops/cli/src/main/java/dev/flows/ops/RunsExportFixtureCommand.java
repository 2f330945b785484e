package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.llm.ModelFixture;
import picocli.CommandLine.Command;

/**
 * {@code flows runs export-fixture RUN}: the run's model answers as a script a test replays ({@code
 * ScriptedModel.fromFixture}); the same JSON in text and {@code --json} form.
 */
@Command(
    name = "export-fixture",
    mixinStandardHelpOptions = true,
    description =
        "Print a run's model answers (the llm receipts of the run and its children, in journal"
            + " order) as a scripted-model fixture: ScriptedModel.fromFixture replays it.")
final class RunsExportFixtureCommand extends RunsCommand.OnRun {
  RunsExportFixtureCommand(Session s) {
    super(s);
  }

  @Override
  int call(RunRef id, Journal journal, RunSnapshot before) {
    ObjectNode fixture = ModelFixture.of(journal, id);
    s.emit(fixture, p -> p.println(fixture.toPrettyString()));
    return Exit.SUCCESS;
  }
}
