package dev.flows.kernel.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/** The kind-specific part of a step. Sealed: the kernel's vocabulary is closed. */
public sealed interface StepBody {
  StepKind kind();

  /**
   * Runs a command. {@code argv} has one element and {@code shell} is true for a string form.
   * {@code cwd}, an absolute directory, is where it runs; empty: the worker's working directory.
   */
  record Deterministic(List<String> argv, boolean shell, Optional<String> cwd) implements StepBody {
    public Deterministic {
      argv = List.copyOf(argv);
      if (cwd.isPresent() && !cwd.get().startsWith("/")) {
        throw new IllegalArgumentException("cwd must be an absolute path: " + cwd.get());
      }
    }

    public Deterministic(List<String> argv, boolean shell) {
      this(argv, shell, Optional.empty());
    }

    @Override
    public StepKind kind() {
      return StepKind.DETERMINISTIC;
    }
  }

  /**
   * Asks a model. {@code model} is empty when the worker's default applies. Its one effect, the
   * model call, is recorded on {@link #SURFACE} (no declaration needed: the kind implies it).
   */
  record Llm(String prompt, String model) implements StepBody {
    /** The surface of an llm step's model call. */
    public static final String SURFACE = "/llm";

    @Override
    public StepKind kind() {
      return StepKind.LLM;
    }
  }

  /**
   * Does effectful work dispatched by {@code instruction.type}; may only touch the declared
   * external surfaces (e.g. {@code /mcp/stripe/create_customer}). The instruction is read-only:
   * parts of it are shared with other specs ({@link SharedInstructions}).
   */
  record Agent(JsonNode instruction, RecoveryMode recoveryMode, List<String> externalSurfaces)
      implements StepBody {
    public Agent {
      // A copy no caller holds, whose large repeated parts (MCP inventory, connection, origin) are
      // instances shared with other specs: read-only from here on, see SharedInstructions.
      instruction = SharedInstructions.copyOf(instruction);
      externalSurfaces = List.copyOf(externalSurfaces);
    }

    /**
     * Whether {@code path} is one of the declared surfaces. A declared path ending in {@code /*}
     * covers every path under it: a flow's root step declares {@code /memo/*} because the number of
     * memoized steps is known only as the body runs.
     */
    public boolean declares(String path) {
      for (String s : externalSurfaces) {
        if (s.equals(path)
            || (s.endsWith("/*")
                && path.startsWith(s.substring(0, s.length() - 1))
                && path.length() > s.length() - 1)) {
          return true;
        }
      }
      return false;
    }

    public String instructionType() {
      return instruction.path("type").asText();
    }

    @Override
    public StepKind kind() {
      return StepKind.AGENT;
    }
  }
}
