package dev.flows.journalstore;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code sql/*.sql} statement with {@code :name} parameters turned into JDBC's positional {@code
 * ?}, for the few statements run with plain JDBC. Comments are dropped first, so a colon in a
 * comment is never taken for a parameter; {@code ::} casts are not supported (the statements use
 * {@code CAST}). Public for ops/bench, which sends the journal's memo statement bare.
 */
public record PositionalSql(String sql, List<String> names) {
  private static final Pattern PARAMETER = Pattern.compile("(?<![:\\w]):([A-Za-z][A-Za-z0-9_]*)");
  private static final Pattern COMMENT = Pattern.compile("--[^\\n]*");

  public static PositionalSql of(String named) {
    String text = COMMENT.matcher(named).replaceAll("");
    List<String> names = new ArrayList<>();
    Matcher m = PARAMETER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      names.add(m.group(1));
      m.appendReplacement(out, "?");
    }
    m.appendTail(out);
    return new PositionalSql(out.toString(), List.copyOf(names));
  }

  /** Binds {@code value} at every position of parameter {@code name}. */
  public void bind(PreparedStatement ps, String name, Object value) throws SQLException {
    boolean found = false;
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equals(name)) {
        ps.setObject(i + 1, value);
        found = true;
      }
    }
    if (!found) {
      throw new IllegalStateException("no parameter :" + name + " in " + sql);
    }
  }
}
