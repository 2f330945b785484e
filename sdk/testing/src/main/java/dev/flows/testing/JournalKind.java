package dev.flows.testing;

/** Where a {@link FlowsTestEnvironment} keeps its journal. */
public enum JournalKind {
  /** The in-memory journal: fast, gone with the environment. The default. */
  MEMORY,
  /**
   * An embedded PostgreSQL (started once per JVM, a fresh database per environment): the schema,
   * SQL and notifications of production, for integration tests.
   */
  POSTGRES
}
