package dev.flows.worker;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.worker.exec.DeterministicExecutor;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;

/**
 * A worker process: {@code WorkerMain <jdbc-url>}. Serves deterministic steps against the Postgres
 * journal until SIGTERM (or SIGINT), then stops cleanly ({@link Worker#stop()}) before exiting.
 * Configuration fields can be overridden with {@code flows.worker.*} system properties ({@link
 * WorkerConfig#overriddenBy}).
 */
public final class WorkerMain {
  private static final int USAGE_EXIT = 2;

  private WorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: WorkerMain <jdbc:postgresql://...>");
      System.exit(USAGE_EXIT);
    }
    WorkerConfig config = WorkerConfig.defaults().overriddenBy(System.getProperties());
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(args[0]));
    Worker worker =
        new Worker(
            journal,
            ExecutorRegistry.of(new DeterministicExecutor(config)),
            config,
            Clock.systemUTC());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  worker.stop();
                  journal.close();
                  stopped.countDown();
                },
                "flows-worker-stop"));
    worker.start();
    System.out.println("flows worker " + worker.id() + " started");
    stopped.await();
  }
}
