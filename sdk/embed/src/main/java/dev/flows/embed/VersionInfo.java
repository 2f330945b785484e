package dev.flows.embed;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One version of a flow as {@link Flows#versions} read it: what still runs on it and who serves it.
 *
 * @param flow the flow's name
 * @param version the header version its runs started with (a class flow's version is in its route)
 * @param route what workers claim its runs by: {@code flow:NAME@VERSION} for a class flow, {@code
 *     flow:source:SHA256} for a single-file flow (two edits at one version are two routes)
 * @param runs its runs not ended, root and child runs alike
 * @param oldestStartedAt when the oldest of them was admitted; empty with none
 * @param workers the live workers that serve it (their ids); none: its runs wait
 */
public record VersionInfo(
    String flow,
    String version,
    String route,
    long runs,
    Optional<Instant> oldestStartedAt,
    List<String> workers) {
  public VersionInfo {
    workers = List.copyOf(workers);
  }
}
