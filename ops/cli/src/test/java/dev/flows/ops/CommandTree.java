package dev.flows.ops;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/** Every command of {@code flows}, read from picocli's model so that a new command is included. */
final class CommandTree {
  private CommandTree() {}

  /** The words that name each command ({@code []} for {@code flows}, {@code [runs, list]}, ...). */
  static List<CommandLine> all() {
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    GlobalOptions global = new GlobalOptions();
    Session session = new Session(none, none, Map.of(), OpsConfig.defaults(), global);
    List<CommandLine> out = new ArrayList<>();
    collect(FlowsCli.commandLine(session, global), out);
    return out;
  }

  private static void collect(CommandLine cl, List<CommandLine> out) {
    out.add(cl);
    cl.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, out));
  }

  /** The words after {@code flows} that name {@code cl}. */
  static List<String> words(CommandLine cl) {
    List<String> words = new ArrayList<>();
    for (CommandLine c = cl; c.getParent() != null; c = c.getParent()) {
      words.add(0, c.getCommandName());
    }
    return words;
  }
}
