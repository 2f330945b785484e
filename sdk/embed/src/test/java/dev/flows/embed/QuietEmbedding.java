package dev.flows.embed;

/**
 * A service that embeds flows and configures no logging of its own: builds on the database named by
 * its argument (migrating it) and closes. Run in a child JVM by {@link EmbeddingLogsTest}.
 */
final class QuietEmbedding {
  private QuietEmbedding() {}

  public static void main(String[] args) {
    Flows.builder().jdbcUrl(args[0]).migrate(true).build().close();
    System.out.println("closed");
  }
}
