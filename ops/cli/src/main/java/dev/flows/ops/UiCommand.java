package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code flows ui}: the web console until SIGTERM. */
@Command(
    name = "ui",
    mixinStandardHelpOptions = true,
    description =
        "Serve the web console (run list, run detail, operator actions) until SIGTERM. Actions"
            + " need the operator token in FLOWS_UI_TOKEN; without it the console is read-only.")
final class UiCommand implements Callable<Integer> {
  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port to serve on (default 7070; 0 picks a free one).")
  int port = Console.DEFAULT_PORT;

  @Option(
      names = "--bind",
      paramLabel = "ADDR",
      description = "Address to listen on (default 127.0.0.1: this machine only).")
  String bind = Console.DEFAULT_BIND;

  private final Session s;

  UiCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    Optional<String> token = Optional.ofNullable(s.env().get(Console.TOKEN_VARIABLE));
    Console.Settings settings = new Console.Settings(bind, port, token);
    // flows.json's limits are read (and a bad one refused) before the database is touched.
    s.limits();
    Database db = s.readyDatabase();
    CountDownLatch stopped = new CountDownLatch(1);
    try (Console console = Console.start(s.journal(), db.dataSource(), settings)) {
      Thread hook = new Thread(stopped::countDown);
      Runtime.getRuntime().addShutdownHook(hook);
      boolean actions = settings.token().isPresent();
      ObjectNode ev = s.object();
      ev.put("type", "ui.ready").put("url", console.uri().toString()).put("actions", actions);
      s.event(ev, "flows ui: serving " + console.uri());
      s.notice(
          actions
              ? "flows ui: actions need the operator token (" + Console.TOKEN_VARIABLE + ")"
              : "flows ui: read-only (set " + Console.TOKEN_VARIABLE + " to enable actions)");
      try {
        stopped.await();
      } catch (InterruptedException e) {
        // An embedding caller stops the command by interrupting it: a normal stop.
        Thread.currentThread().interrupt();
      } finally {
        removeHook(hook);
      }
    }
    return Exit.SUCCESS;
  }

  private static void removeHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is shutting down: the hook is running or has run.
    }
  }
}
