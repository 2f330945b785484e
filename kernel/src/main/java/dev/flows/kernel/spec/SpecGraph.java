package dev.flows.kernel.spec;

import static dev.flows.kernel.spec.SpecChecks.at;
import static dev.flows.kernel.spec.SpecChecks.shown;

import dev.flows.kernel.InvalidSpecException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The checks of a spec's dependency graph: every dependency names a step, and none is a cycle. */
final class SpecGraph {
  private SpecGraph() {}

  static void checkDependenciesExist(List<StepSpec> steps, Map<String, Integer> indexById) {
    for (int i = 0; i < steps.size(); i++) {
      StepSpec s = steps.get(i);
      for (int j = 0; j < s.dependsOn().size(); j++) {
        String dep = s.dependsOn().get(j);
        if (!indexById.containsKey(dep)) {
          throw new InvalidSpecException(
              "step \""
                  + s.id()
                  + "\" depends on "
                  + shown(dep)
                  + ", which is not a step of this spec",
              at(at(at("/steps", i), "dependsOn"), j),
              "name an existing step id or remove the dependency");
        }
      }
    }
  }

  /**
   * Kahn's algorithm, iterative so a long chain cannot overflow the stack. Every step left over has
   * a left-over dependency, so following those from the first left-over step must close a cycle; it
   * is reported from its first step in document order so the message is stable.
   */
  static void checkAcyclic(List<StepSpec> steps, Map<String, Integer> indexById) {
    int n = steps.size();
    int[] pending = new int[n];
    List<List<Integer>> dependents = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      dependents.add(new ArrayList<>());
    }
    Deque<Integer> ready = new ArrayDeque<>();
    for (int i = 0; i < n; i++) {
      pending[i] = steps.get(i).dependsOn().size();
      for (String dep : steps.get(i).dependsOn()) {
        dependents.get(indexById.get(dep)).add(i);
      }
    }
    for (int i = 0; i < n; i++) {
      if (pending[i] == 0) {
        ready.add(i);
      }
    }
    while (!ready.isEmpty()) {
      for (int d : dependents.get(ready.poll())) {
        if (--pending[d] == 0) {
          ready.add(d);
        }
      }
    }
    int start = -1;
    for (int i = 0; i < n && start < 0; i++) {
      if (pending[i] > 0) {
        start = i;
      }
    }
    if (start < 0) {
      return;
    }
    Map<Integer, Integer> positionOnPath = new HashMap<>();
    List<Integer> path = new ArrayList<>();
    int current = start;
    while (!positionOnPath.containsKey(current)) {
      positionOnPath.put(current, path.size());
      path.add(current);
      current =
          steps.get(current).dependsOn().stream()
              .map(indexById::get)
              .filter(d -> pending[d] > 0)
              .findFirst()
              .orElseThrow();
    }
    List<Integer> cycle = path.subList(positionOnPath.get(current), path.size());
    int first = cycle.indexOf(cycle.stream().min(Integer::compare).orElseThrow());
    List<String> names = new ArrayList<>();
    for (int k = 0; k <= cycle.size(); k++) {
      names.add("\"" + steps.get(cycle.get((first + k) % cycle.size())).id() + "\"");
    }
    throw new InvalidSpecException(
        "dependency cycle: " + String.join(" -> ", names) + " (each depends on the next)",
        at("/steps", cycle.get(first)),
        "remove one of these dependencies");
  }
}
