package dev.flows.kernel.journal;

import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecParser;
import java.util.Optional;

/**
 * Admission of a run from its JSON spec: the spec is parsed fail-closed first, so a refused spec
 * ({@code invalid_spec}, with a JSON pointer) never reaches the journal.
 */
public final class RunAdmission {
  private RunAdmission() {}

  public static StartedRun start(
      Journal journal,
      String admissionKey,
      String specJson,
      Optional<RunRef> runId,
      Optional<RunRef> parent,
      String createdBy) {
    RunSpec spec = RunSpecParser.parse(specJson);
    return journal.startRun(new StartRun(runId, admissionKey, spec, parent, createdBy));
  }
}
