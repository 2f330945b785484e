package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Every duration and count option of every command, and every {@code FLOWS_*} variable that stands
 * for one, refuses its bad values {@code config_invalid} (exit 2) at the option or variable, before
 * the database is touched. The options are read from picocli's model, so a new one is walked too.
 */
class OptionValuesTest {
  /** A database that is never reached: a value that gets past its check ends at this one. */
  private static final String UNREACHABLE = "postgres://flows:secret@127.0.0.1:1/flows";

  private static final Set<String> DURATIONS = Set.of("DURATION", "WHEN");
  private static final Set<String> COUNTS = Set.of("N", "PORT");
  private static final Set<Class<?>> NUMBERS =
      Set.of(int.class, Integer.class, long.class, Long.class, Duration.class);
  private static final Pattern VARIABLE = Pattern.compile("env (FLOWS_[A-Z_]+)");

  @TempDir Path home;

  /** An option of a command, and what its values are. */
  record Numeric(CommandLine command, OptionSpec option, boolean duration) {
    String name() {
      return option.longestName();
    }

    List<String> badValues() {
      List<String> bad = new ArrayList<>();
      if (!OptionValues.zeroAllowed(name())) {
        bad.add(duration ? "0s" : "0");
      }
      if (duration) {
        bad.addAll(List.of("-1s", "999999999d", "99999999999999999999s", "5parsecs", "soon"));
      } else {
        bad.addAll(List.of("-1", "99999999999", "70000", "5s", "many"));
      }
      return bad;
    }
  }

  static List<Numeric> numericOptions() {
    List<Numeric> out = new ArrayList<>();
    for (CommandLine cl : CommandTree.all()) {
      for (OptionSpec o : cl.getCommandSpec().options()) {
        if (o.inherited()) {
          continue;
        }
        boolean duration = DURATIONS.contains(o.paramLabel());
        boolean count = COUNTS.contains(o.paramLabel());
        assertThat(duration || count || !NUMBERS.contains(o.type()))
            .as("%s %s is a number: label it DURATION, WHEN, N or PORT", cl.getCommandName(), o)
            .isTrue();
        if (duration || count) {
          out.add(new Numeric(cl, o, duration));
        }
      }
    }
    return out;
  }

  private Cli cli() {
    return new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
  }

  /** The command's words with a placeholder for each positional parameter it requires. */
  private static List<String> invocation(CommandLine cl) {
    List<String> args = new ArrayList<>(CommandTree.words(cl));
    for (PositionalParamSpec p : cl.getCommandSpec().positionalParameters()) {
      for (int i = 0; i < Math.max(1, p.arity().min()); i++) {
        args.add("x");
      }
    }
    return args;
  }

  private static void assertRefusedAt(Cli.Result r, String place, String what) {
    assertThat(r.exit()).as("%s exit; stderr: %s", what, r.err()).isEqualTo(Exit.REFUSED);
    JsonNode e = r.json().path("error");
    assertThat(e.path("code").asText()).as("%s: %s", what, r.err()).isEqualTo("config_invalid");
    assertThat(e.path("place").asText()).as(what).isEqualTo(place);
    assertThat(e.path("message").asText()).as(what).contains(place);
    assertThat(r.errLines()).as(what).singleElement().asString().doesNotContain("Exception");
  }

  @Test
  void everyDurationAndCountOptionOfEveryCommandRefusesItsBadValuesConfigInvalid() {
    List<Numeric> options = numericOptions();
    assertThat(options.stream().map(Numeric::name))
        .as("the walk finds the options it is about")
        .contains("--lease", "--capacity", "--older-than", "--limit", "--port");
    Cli cli = cli();
    for (Numeric n : options) {
      for (String bad : n.badValues()) {
        List<String> args = invocation(n.command());
        args.addAll(List.of(n.name() + "=" + bad, "--db", UNREACHABLE, "--json"));
        assertRefusedAt(cli.run(args.toArray(String[]::new)), n.name(), String.join(" ", args));
      }
    }
  }

  @Test
  void everyVariableThatStandsForAnOptionRefusesTheOptionsBadValuesConfigInvalid() {
    int variables = 0;
    for (Numeric n : numericOptions()) {
      String description = String.join(" ", n.option().description());
      Matcher m = VARIABLE.matcher(description);
      while (m.find()) {
        variables++;
        String variable = m.group(1);
        for (String bad : n.badValues()) {
          List<String> args = invocation(n.command());
          args.addAll(List.of("--db", UNREACHABLE, "--json"));
          Cli.Result r = cli().with(variable, bad).run(args.toArray(String[]::new));
          assertRefusedAt(r, variable, variable + "=" + bad + " " + String.join(" ", args));
        }
      }
    }
    assertThat(variables).as("variables named by the options' help").isGreaterThanOrEqualTo(5);
  }
}
