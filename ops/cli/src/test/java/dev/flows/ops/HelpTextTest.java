package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What {@code --help} prints, the same for every command. */
class HelpTextTest {
  @TempDir Path home;

  @Test
  void everyCommandsHelpShowsTheDatabaseUrlPlaceholderUnmasked() {
    Cli cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
    List<CommandLine> commands = CommandTree.all();
    assertThat(commands).hasSizeGreaterThan(10);
    for (CommandLine cl : commands) {
      List<String> args = new ArrayList<>(CommandTree.words(cl));
      args.add("--help");
      Cli.Result r = cli.run(args.toArray(String[]::new));
      String help = r.out().replaceAll("\\n\\s+", "");
      assertThat(r.exit()).as("%s: %s", args, r.err()).isZero();
      assertThat(help)
          .as("help of %s", args)
          .contains("postgres://USER:PASS@HOST:PORT/DB")
          .doesNotContain("***");
    }
  }
}
