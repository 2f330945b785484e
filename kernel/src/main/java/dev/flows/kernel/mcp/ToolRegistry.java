package dev.flows.kernel.mcp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The tools every connected server offers, keyed {@code server/tool}. A server's set is replaced as
 * a whole (on connect, reconnect and list_changed), so a reconnect never duplicates a tool.
 * Thread-safe; listeners run on the caller's thread after the change.
 */
public final class ToolRegistry {
  private final Map<String, Map<String, ToolDescriptor>> byServer = new LinkedHashMap<>();
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  /** Observer of registry changes. */
  public interface Listener {
    void added(ToolDescriptor tool);

    void removed(ToolDescriptor tool);
  }

  public void addListener(Listener l) {
    listeners.add(l);
  }

  /** Makes {@code tools} the whole set for {@code server}. */
  public void replace(String server, List<ToolDescriptor> tools) {
    List<ToolDescriptor> added = new ArrayList<>();
    List<ToolDescriptor> removed = new ArrayList<>();
    synchronized (byServer) {
      Map<String, ToolDescriptor> old = byServer.getOrDefault(server, Map.of());
      Map<String, ToolDescriptor> next = new LinkedHashMap<>();
      for (ToolDescriptor t : tools) {
        if (!t.server().equals(server)) {
          throw new IllegalArgumentException(t.qualifiedName() + " is not of server " + server);
        }
        next.put(t.name(), t);
      }
      for (ToolDescriptor t : old.values()) {
        if (!t.equals(next.get(t.name()))) {
          removed.add(t);
        }
      }
      for (ToolDescriptor t : next.values()) {
        if (!t.equals(old.get(t.name()))) {
          added.add(t);
        }
      }
      if (next.isEmpty()) {
        byServer.remove(server);
      } else {
        byServer.put(server, next);
      }
    }
    for (Listener l : listeners) {
      removed.forEach(l::removed);
      added.forEach(l::added);
    }
  }

  /** Removes every tool of {@code server}. */
  public void removeServer(String server) {
    replace(server, List.of());
  }

  public Optional<ToolDescriptor> find(String server, String tool) {
    synchronized (byServer) {
      return Optional.ofNullable(byServer.getOrDefault(server, Map.of()).get(tool));
    }
  }

  public List<ToolDescriptor> tools(String server) {
    synchronized (byServer) {
      return List.copyOf(byServer.getOrDefault(server, Map.of()).values());
    }
  }

  /** Every registered tool, ordered by qualified name. */
  public List<ToolDescriptor> all() {
    synchronized (byServer) {
      return byServer.values().stream()
          .flatMap(m -> m.values().stream())
          .sorted(Comparator.comparing(ToolDescriptor::qualifiedName))
          .toList();
    }
  }
}
