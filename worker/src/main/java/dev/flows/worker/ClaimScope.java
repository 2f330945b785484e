package dev.flows.worker;

import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.Queues;
import dev.flows.kernel.journal.WorkerId;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a worker claims beyond its executors' kinds: the routes and route prefixes it accepts, the
 * queues it serves, and the route prefixes under which it notes why steps it does not accept wait.
 */
final class ClaimScope {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  /** Most steps one note pass marks; the next pass takes the next ones. */
  static final int NOTE_BATCH = 100;

  /** Steps under {@code routePrefix} this worker does not accept are noted with {@code reason}. */
  private record WaitNote(String routePrefix, String reason) {}

  private final List<Supplier<Set<String>>> extraRoutes = new CopyOnWriteArrayList<>();
  private final List<Supplier<Set<String>>> routePrefixes = new CopyOnWriteArrayList<>();
  private final List<WaitNote> waitNotes = new CopyOnWriteArrayList<>();
  private volatile Set<String> queues = Set.of(Queues.DEFAULT);

  void addRoutes(Supplier<Set<String>> more) {
    extraRoutes.add(more);
  }

  void addRoutePrefixes(Supplier<Set<String>> more) {
    routePrefixes.add(more);
  }

  void serveQueues(Set<String> served) {
    if (served.isEmpty()) {
      throw new IllegalArgumentException("a worker serves at least one queue");
    }
    served.forEach(Queues::require);
    queues = Set.copyOf(served);
  }

  Set<String> queues() {
    return queues;
  }

  void noteWhenUnaccepted(String routePrefix, String reason) {
    waitNotes.add(new WaitNote(routePrefix, reason));
  }

  /** Whether there is anything to note. */
  boolean notes() {
    return !waitNotes.isEmpty();
  }

  ClaimRequest request(
      WorkerId id, ExecutorRegistry executors, int capacity, Duration defaultLease) {
    Set<String> prefixes = new HashSet<>();
    routePrefixes.forEach(p -> prefixes.addAll(p.get()));
    return new ClaimRequest(
        id,
        executors.kinds(),
        capacity,
        defaultLease,
        routes(executors),
        prefixes,
        Optional.of(queues));
  }

  private Optional<Set<String>> routes(ExecutorRegistry executors) {
    Optional<Set<String>> own = executors.routes();
    if (own.isEmpty()) {
      return own;
    }
    Set<String> all = new HashSet<>(own.get());
    extraRoutes.forEach(s -> all.addAll(s.get()));
    return Optional.of(all);
  }

  void noteUnaccepted(Journal journal, ClaimRequest request) {
    for (WaitNote n : waitNotes) {
      try {
        int noted = journal.noteUnaccepted(request, n.routePrefix(), n.reason());
        if (noted > 0) {
          LOG.info("{} ready step(s) wait: {}", noted, n.reason());
        }
      } catch (RuntimeException e) {
        LOG.warn("noting why steps wait failed; trying again next interval: {}", e.toString());
      }
    }
  }
}
