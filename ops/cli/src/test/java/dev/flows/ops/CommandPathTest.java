package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A command line that names a command gets picocli's model of that command's path only: it must
 * parse, refuse and help exactly as the whole tree does.
 */
class CommandPathTest {
  private static CommandLine built(String... args) {
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    GlobalOptions global = new GlobalOptions();
    Session session = new Session(none, none, Map.of(), OpsConfig.defaults(), global);
    return FlowsCli.commandLine(session, global, args);
  }

  private static CommandLine at(CommandLine root, List<String> words) {
    CommandLine cl = root;
    for (String w : words) {
      cl = cl.getSubcommands().get(w);
    }
    return cl;
  }

  @Test
  void everyCommandBuiltAloneHasTheUsageAndOptionsItHasInTheWholeTree() {
    List<CommandLine> all = CommandTree.all();
    assertThat(all).hasSizeGreaterThan(10);
    for (CommandLine whole : all) {
      List<String> words = CommandTree.words(whole);
      if (words.isEmpty()) {
        continue;
      }
      List<String> args = new ArrayList<>(List.of("--db", "postgres://h/db", "--json"));
      args.addAll(words);
      args.add("--help");
      CommandLine alone = at(built(args.toArray(String[]::new)), words);
      assertThat(alone).as("%s built alone", words).isNotNull();
      assertThat(alone.getUsageMessage()).as("%s", words).isEqualTo(whole.getUsageMessage());
      assertThat(alone.getCommandSpec().options().stream().map(o -> o.longestName()).toList())
          .as("%s", words)
          .isEqualTo(whole.getCommandSpec().options().stream().map(o -> o.longestName()).toList());
    }
  }

  @Test
  void aRunsSubcommandIsBuiltWithoutTheOtherCommands() {
    CommandLine root = built("--json", "runs", "show", "run_1");
    assertThat(root.getSubcommands().keySet()).containsExactly("runs");
    assertThat(root.getSubcommands().get("runs").getSubcommands().keySet()).containsExactly("show");
  }

  @Test
  void aCommandLineThatNamesNoKnownCommandGetsTheWholeTree() {
    assertThat(built("--help").getSubcommands().keySet())
        .containsExactlyElementsOf(FlowsCli.COMMANDS.keySet());
    assertThat(built("runs", "shwo").getSubcommands().get("runs").getSubcommands().keySet())
        .containsExactlyElementsOf(RunsCommand.SUBCOMMANDS.keySet());
    assertThat(built("nonsense").getSubcommands()).hasSize(FlowsCli.COMMANDS.size());
  }

  @Test
  void theCommandWordsSkipOptionsAndTheDatabaseUrl() {
    assertThat(FlowsCli.commandWords(new String[] {"--db", "x", "--json", "runs", "list"}))
        .containsExactly("runs", "list");
    assertThat(FlowsCli.commandWords(new String[] {"runs", "--db=x", "show", "r", "--full"}))
        .containsExactly("runs", "show");
  }
}
