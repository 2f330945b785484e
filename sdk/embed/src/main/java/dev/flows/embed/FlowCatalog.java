package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.sdk.Flow;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.runtime.FlowVersions;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.Preflight;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The flows a {@link Flows} was built with, each the very instance the caller registered, and the
 * inventory preflight froze for it: computed at its first start, then reused by every start until
 * it is refreshed (on demand, or after a run met a tool the inventory lacks).
 */
final class FlowCatalog {
  private final Map<Class<?>, Registered> byClass = new LinkedHashMap<>();
  private final Map<String, Registered> byName = new LinkedHashMap<>();

  /** One registered flow. A registered flow's version never changes, so one inventory serves. */
  static final class Registered {
    private final Flow flow;
    private final LoadedFlow loaded;
    private Optional<Inventory> inventory = Optional.empty(); // guarded by this

    private Registered(Flow flow) {
      this.flow = flow;
      this.loaded =
          new LoadedFlow(
              flow,
              new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
              Set.of(),
              Path.of("").toAbsolutePath());
    }

    Flow flow() {
      return flow;
    }

    LoadedFlow loaded() {
      return loaded;
    }

    String name() {
      return flow.header().name();
    }

    /** The frozen inventory, preflighting (connect pass) only when none is held. */
    synchronized Inventory inventory(Function<LoadedFlow, Inventory> preflight) {
      if (inventory.isEmpty()) {
        inventory = Optional.of(preflight.apply(loaded));
      }
      return inventory.get();
    }

    /** Preflights again and keeps the new inventory (the old one stays if preflight fails). */
    synchronized Inventory refresh(Function<LoadedFlow, Inventory> preflight) {
      inventory = Optional.of(preflight.apply(loaded));
      return inventory.get();
    }

    synchronized void forget() {
      inventory = Optional.empty();
    }
  }

  FlowCatalog(List<? extends Flow<?, ?>> flows) {
    for (Flow f : flows) {
      Registered r = new Registered(f);
      Registered sameName = byName.get(r.name());
      String version = f.header().version();
      boolean sameVersion = sameName != null && sameName.flow.header().version().equals(version);
      if (sameVersion || byClass.putIfAbsent(f.getClass(), r) != null) {
        throw new FlowsException(
            ErrorCode.CONFIG_INVALID,
            "two flows registered as "
                + r.name()
                + " version "
                + version
                + " ("
                + f.getClass().getName()
                + ")",
            "Flows.builder().register(...)",
            "register each flow class once; versions of one name side by side need their own"
                + " header versions");
      }
      // A start by name takes the newest version; runs replay on the one they started with.
      if (sameName == null || FlowVersions.newer(version, sameName.flow.header().version())) {
        byName.put(r.name(), r);
      }
    }
  }

  List<Registered> all() {
    return List.copyOf(byClass.values());
  }

  Registered of(Class<? extends Flow> type) {
    Registered r = byClass.get(type);
    if (r == null) {
      throw new FlowsException(
          ErrorCode.FLOW_NOT_FOUND,
          "flow class " + type.getName() + " is not registered with this Flows",
          type.getName(),
          "pass an instance to Flows.builder().register(...)");
    }
    return r;
  }

  Optional<Registered> named(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  /** The pure preflight pass of every registered flow: no network, every problem at once. */
  List<FlowsException> pureProblems(FlowsConfig servers, Set<String> modelsInCode) {
    List<FlowsException> problems = new ArrayList<>();
    for (Registered r : byClass.values()) {
      problems.addAll(Preflight.pure(r.flow.header(), servers, Set.of(), modelsInCode));
    }
    return problems;
  }
}
