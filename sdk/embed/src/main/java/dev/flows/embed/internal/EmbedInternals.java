package dev.flows.embed.internal;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsBuilder;
import dev.flows.kernel.journal.Journal;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Not API (no compatibility promise): how the test kit ({@code flows-testing}) builds a {@link
 * Flows} on a journal it made itself, in memory or on Postgres with a test clock. The public
 * builder offers no journal option, so that no kernel type is part of the embedding API; {@link
 * FlowsBuilder} hands its assembly over here when it is loaded.
 */
public final class EmbedInternals {
  /** How {@link FlowsBuilder} assembles a {@link Flows} on a given journal. */
  @FunctionalInterface
  public interface Assembly {
    Flows build(
        FlowsBuilder builder, Journal journal, Optional<DataSource> listing, InstantSource clock);
  }

  private static final AtomicReference<Assembly> ASSEMBLY = new AtomicReference<>();

  private EmbedInternals() {}

  /** Called once, by {@link FlowsBuilder}'s class initialization. */
  public static void install(Assembly assembly) {
    if (!ASSEMBLY.compareAndSet(null, assembly)) {
      throw new IllegalStateException("the embedding assembly is installed once");
    }
  }

  /**
   * {@code builder}'s flows and servers on {@code journal}, every part of the engine reading the
   * time from {@code clock}; {@code listing} is the database {@link Flows#runs()} reads, when there
   * is one. The journal is the caller's to close, after the {@link Flows}.
   */
  public static Flows build(
      FlowsBuilder builder, Journal journal, Optional<DataSource> listing, InstantSource clock) {
    // The builder's class is initialized by now (the caller holds one), so the assembly is in.
    return ASSEMBLY.get().build(builder, journal, listing, clock);
  }
}
