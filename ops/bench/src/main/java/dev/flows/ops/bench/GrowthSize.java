package dev.flows.ops.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;

/** How much disk a filled journal takes: each run table with its indexes and TOAST. */
final class GrowthSize {
  private GrowthSize() {}

  /** Per table of the flows schema, {@code pg_total_relation_size}, biggest first. */
  static Map<String, Long> bytes(String url) throws Exception {
    Map<String, Long> out = new LinkedHashMap<>();
    try (Connection c = DriverManager.getConnection(url);
        ResultSet r =
            c.createStatement()
                .executeQuery(
                    "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
                        + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = 'flows' AND c.relkind = 'r'"
                        + " ORDER BY 2 DESC")) {
      while (r.next()) {
        out.put(r.getString(1), r.getLong(2));
      }
    }
    return out;
  }
}
