package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.sdk.Flow;
import dev.flows.sdk.compile.FlowSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code flows run FLOW --key KEY} when that key's run has ended: found with one lookup, before the
 * flow is compiled, its servers preflighted or a worker started, so asking again for a finished run
 * answers at once. Only the same admission is answered here (the same flow source or class, the
 * same input, under the key); anything else, and a run that goes on, is left to the full start,
 * which refuses or follows it as before.
 */
final class EndedRunByKey {
  /** {@code FlowHeader.named("NAME")} with a literal name: a guess the source's hash confirms. */
  private static final Pattern NAMED =
      Pattern.compile("FlowHeader\\s*\\.\\s*named\\s*\\(\\s*\"([^\"\\\\]+)\"\\s*\\)");

  private static final String BY_KEY =
      "SELECT run_id FROM flows.runs WHERE admission_key = ? AND parent_run_id IS NULL";

  /** The flow a command line names, as far as it can be known without compiling it. */
  private record Named(String name, Predicate<FlowBodyInstruction.Origin> sameOrigin) {}

  private EndedRunByKey() {}

  /** The ended run {@code key} admitted for this flow and input, when there is one. */
  static Optional<RunSnapshot> find(
      Session s, String flow, Path workingDir, String key, JsonNode input) {
    Optional<Named> named = named(flow, workingDir);
    if (named.isEmpty()) {
      return Optional.empty();
    }
    String admissionKey = "flow:" + named.get().name() + ":" + key;
    Optional<RunRef> id =
        s.readyDatabase()
            .withConnection(
                c -> {
                  try (PreparedStatement ps = c.prepareStatement(BY_KEY)) {
                    ps.setString(1, admissionKey);
                    try (ResultSet rs = ps.executeQuery()) {
                      return rs.next()
                          ? Optional.of(new RunRef(rs.getString(1)))
                          : Optional.empty();
                    }
                  }
                });
    if (id.isEmpty()) {
      return Optional.empty();
    }
    Journal journal = s.commandJournal();
    return journal
        .run(id.get())
        .filter(r -> r.status().terminal())
        .filter(r -> sameAdmission(r, named.get(), input));
  }

  private static boolean sameAdmission(RunSnapshot run, Named named, JsonNode input) {
    JsonNode body = run.spec().path("steps").path(0);
    try {
      FlowBodyInstruction instruction =
          FlowBodyInstruction.fromJson(body.path("agent").path("instruction"));
      return named.sameOrigin().test(instruction.origin()) && body.path("input").equals(input);
    } catch (FlowsException e) {
      return false;
    }
  }

  private static Optional<Named> named(String flow, Path workingDir) {
    if (flow.endsWith(FlowSource.SUFFIX) || flow.contains("/")) {
      Path file = workingDir.resolve(flow).toAbsolutePath().normalize();
      String source;
      try {
        source = Files.readString(file);
      } catch (IOException e) {
        return Optional.empty();
      }
      Matcher m = NAMED.matcher(source);
      if (!m.find()) {
        return Optional.empty();
      }
      String hash = FlowSource.hash(source);
      return Optional.of(
          new Named(
              m.group(1),
              o ->
                  o instanceof FlowBodyInstruction.Origin.SourceFlow sf
                      && sf.sourceHash().equals(hash)));
    }
    try {
      Class<?> c = Class.forName(flow);
      if (!Flow.class.isAssignableFrom(c)) {
        return Optional.empty();
      }
      Flow f = (Flow) c.getDeclaredConstructor().newInstance();
      return Optional.of(
          new Named(
              f.header().name(),
              o ->
                  o instanceof FlowBodyInstruction.Origin.ClassFlow cf
                      && cf.className().equals(c.getName())));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // Not a loadable flow class: the full start says why.
      return Optional.empty();
    }
  }
}
