package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The {@code flows} command. Every refusal is one line on stderr, {@code error <code>: <message>
 * (at <place>) fix: <fix>}, never a stack trace (unless {@code --debug} or {@code FLOWS_DEBUG=1});
 * with {@code --json} stdout carries {@code {"error":{...}}}. Exit codes: 0 success, 1 failed, 2
 * refused, 3 parked.
 */
@Command(
    name = "flows",
    mixinStandardHelpOptions = true,
    versionProvider = FlowsCli.Version.class,
    description = "Durable flows with journaled effects, on Postgres.")
public final class FlowsCli implements Callable<Integer> {
  /**
   * The commands, by name, in the order help lists them; {@code runs}' own in {@link
   * RunsCommand#SUBCOMMANDS}. Added by {@link #commandLine(Session, GlobalOptions, String[])}, not
   * by annotation, so that a command line builds picocli's model of the command it names only.
   */
  static final Map<String, Class<?>> COMMANDS =
      ordered(
          "run", RunCommand.class,
          "check", CheckCommand.class,
          "replay-check", ReplayCheckCommand.class,
          "versions", VersionsCommand.class,
          "worker", WorkerCommand.class,
          "runs", RunsCommand.class,
          "schedules", SchedulesCommand.class,
          "mcp", McpCommand.class,
          "db", DbCommand.class,
          "ui", UiCommand.class,
          "demo", DemoCommand.class);

  @Mixin GlobalOptions global;

  private final Session session;

  FlowsCli(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows",
        "run `flows --help` for the list (demo, run, check, replay-check, versions, worker, runs, schedules, mcp, db, ui)");
  }

  public static void main(String[] args) {
    // Groovy closures as option values: not used here, and looking for Groovy costs every start.
    System.setProperty("picocli.disable.closures", "true");
    // Library log lines (slf4j-simple writes to System.err) are masked like the command's own,
    // on the terminal and in the log file alike.
    List<String> secrets = DatabaseTarget.secrets(args, System.getenv());
    PrintStream plain = System.out;
    PrintStream out = RedactingStream.wrap(plain, secrets);
    System.setOut(out);
    System.setErr(RedactingStream.wrap(System.err, secrets));
    PrintStream terminal = CliLog.install(args, System.getenv());
    System.setErr(RedactingStream.wrap(System.err, secrets));
    // run() masks what the command prints; only picocli's help and version text go out plain.
    int code = run(args, plain, terminal, System.getenv());
    out.flush();
    terminal.flush();
    System.exit(code);
  }

  /** Runs one command line in-process; answers its exit code. Never throws. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, System.getenv());
  }

  /** As {@link #run(String[], PrintStream, PrintStream)} with an explicit environment. */
  public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    return run(args, out, err, env, OpsConfig.defaults());
  }

  static int run(
      String[] args,
      PrintStream rawOut,
      PrintStream rawErr,
      Map<String, String> env,
      OpsConfig config) {
    List<String> secrets = DatabaseTarget.secrets(args, env);
    PrintStream out = RedactingStream.wrap(rawOut, secrets);
    PrintStream err = RedactingStream.wrap(rawErr, secrets);
    GlobalOptions global = new GlobalOptions();
    fromRawWords(args, global);
    Session session = new Session(out, err, env, config, global);
    try (session) {
      CommandLine cl = commandLine(session, global, args);
      // Help and version text hold no secret, and masking would mangle the URL placeholders.
      cl.setOut(new PrintWriter(rawOut, true, StandardCharsets.UTF_8));
      cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
      cl.setParameterExceptionHandler(
          (ParameterException e, String[] a) -> {
            fromRawWords(args, global);
            String command = e.getCommandLine().getCommandSpec().qualifiedName();
            session.refuse(
                OptionValues.refusal(e, config)
                    .orElseGet(
                        () ->
                            new FlowsException(
                                ErrorCode.INVALID_INPUT,
                                Database.oneLine(e.getMessage()),
                                command,
                                "see `" + command + " --help`")));
            return Exit.REFUSED;
          });
      cl.setExecutionExceptionHandler(
          (e, cmd, parsed) -> {
            FlowsException f = asFlows(e, cmd.getCommandSpec().qualifiedName());
            session.refuse(f);
            return Exit.forCode(f.code());
          });
      cl.setExecutionStrategy(
          parsed -> {
            bindGlobals(parsed, global);
            try {
              OptionValues.check(parsed, config);
            } catch (FlowsException f) {
              session.refuse(f);
              return Exit.forCode(f.code());
            }
            return new CommandLine.RunLast().execute(parsed);
          });
      return cl.execute(args);
    } catch (RuntimeException | Error e) {
      FlowsException f = asFlows(e, "flows");
      session.refuse(f);
      return Exit.forCode(f.code());
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** The command tree, its commands built with {@code session} and the shared global options. */
  static CommandLine commandLine(Session session, GlobalOptions global) {
    return commandLine(session, global, new String[0]);
  }

  /**
   * The command tree for {@code args}: when they name a command ({@code flows runs show RUN}), the
   * path to it only, which parses, refuses and helps alike at a fraction of the start-up cost
   * (picocli builds each command's model by reflection); the whole tree otherwise ({@code flows
   * --help}, {@code flows runs}, an unknown name, which picocli lists or suggests from).
   */
  static CommandLine commandLine(Session session, GlobalOptions global, String[] args) {
    Factory factory = new Factory(session, global);
    CommandLine root = new CommandLine(FlowsCli.class, factory);
    List<String> path = commandWords(args);
    Class<?> named = path.isEmpty() ? null : COMMANDS.get(path.get(0));
    if (named == null) {
      COMMANDS.values().forEach(c -> add(root, c, factory, null));
    } else {
      add(root, named, factory, path.size() < 2 ? null : path.get(1));
    }
    return root;
  }

  /**
   * Adds {@code command} under {@code parent}; of {@code runs}' subcommands only the one {@code
   * subcommand} names, when it names one, else all.
   */
  private static void add(
      CommandLine parent, Class<?> command, Factory factory, String subcommand) {
    CommandLine added = add(parent, command, factory);
    if (command == RunsCommand.class) {
      Class<?> sub = subcommand == null ? null : RunsCommand.SUBCOMMANDS.get(subcommand);
      if (sub == null) {
        RunsCommand.SUBCOMMANDS.values().forEach(c -> add(added, c, factory));
      } else {
        add(added, sub, factory);
      }
    }
  }

  private static CommandLine add(CommandLine parent, Class<?> command, Factory factory) {
    CommandLine sub = new CommandLine(command, factory);
    parent.addSubcommand(sub);
    return sub;
  }

  /**
   * The first two words of {@code args} that are not options (nor {@code --db}'s value): the names
   * of the command and, for {@code runs}, its subcommand. Other options take no separate value
   * before the subcommand's name.
   */
  static List<String> commandWords(String[] args) {
    List<String> words = new java.util.ArrayList<>();
    for (int i = 0; i < args.length && words.size() < 2; i++) {
      if (args[i].equals("--db")) {
        i++;
      } else if (args[i].equals("--")) {
        break;
      } else if (!args[i].startsWith("-")) {
        words.add(args[i]);
      }
    }
    return words;
  }

  /** A map of names to command classes, in the order given. */
  static Map<String, Class<?>> ordered(Object... namesAndClasses) {
    Map<String, Class<?>> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < namesAndClasses.length; i += 2) {
      m.put((String) namesAndClasses[i], (Class<?>) namesAndClasses[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  /** When parsing failed, the options are not bound; the raw words still say what was asked. */
  private static void fromRawWords(String[] args, GlobalOptions global) {
    global.json = Arrays.asList(args).contains("--json");
    global.debug = Arrays.asList(args).contains("--debug");
  }

  /**
   * The global options as given at any level ({@code flows --json runs list} or {@code flows runs
   * list --json}); read from the parse result because picocli binds inherited options per level.
   */
  private static void bindGlobals(ParseResult parsed, GlobalOptions global) {
    boolean json = false;
    boolean debug = false;
    String db = null;
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      json |= p.hasMatchedOption("--json");
      debug |= p.hasMatchedOption("--debug");
      if (p.hasMatchedOption("--db")) {
        // The words as typed: the bound field is shared by every level.
        java.util.List<String> given = p.matchedOption("--db").originalStringValues();
        db = given.get(given.size() - 1);
      }
    }
    global.json = json;
    global.debug = debug;
    global.db = db;
  }

  static FlowsException asFlows(Throwable e, String where) {
    if (e instanceof FlowsException f) {
      return f;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof FlowsException f) {
        return f;
      }
      if (t instanceof SQLException s) {
        return Database.translate(s, where);
      }
    }
    String detail = e instanceof UncheckedIOException u ? u.getCause().toString() : e.toString();
    return new FlowsException(
        ErrorCode.INTERNAL_ERROR,
        "unexpected failure: " + Database.oneLine(detail),
        where,
        "rerun with --debug for the stack trace and report it",
        false,
        e);
  }

  /** Builds commands with the session (and the one shared set of global options). */
  private record Factory(Session session, GlobalOptions global) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      if (cls == GlobalOptions.class) {
        return cls.cast(global);
      }
      try {
        Constructor<K> c = cls.getDeclaredConstructor(Session.class);
        return c.newInstance(session);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(cls);
      }
    }
  }

  /** The version from the build. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties p = new Properties();
      try (InputStream in = FlowsCli.class.getResourceAsStream("/flows-ops.properties")) {
        if (in != null) {
          p.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new String[] {
        "flows " + p.getProperty("flows.version", "(unknown version)"),
        "embedded PostgreSQL " + PgBinaries.VERSION
      };
    }
  }
}
