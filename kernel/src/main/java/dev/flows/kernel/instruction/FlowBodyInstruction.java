package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.llm.ModelPrices;
import dev.flows.kernel.llm.SpendLimit;
import dev.flows.kernel.spec.StepBody;
import java.util.Objects;
import java.util.Optional;

/**
 * A flow's body, the instruction of a flow run's root step: run flow {@code flow} at {@code
 * version}, whose code comes from {@code origin}, with the MCP servers of {@code inventory} (the
 * servers and tools frozen at preflight). {@code route} narrows which workers may claim the body;
 * bodies admitted before routes existed have none. JSON: {@code {type:"flow", flow, version,
 * origin:{kind, className, sourceHash?, source?, dir?, file?}, route?, mcp, budget?, prices?}}:
 * {@code budget} what the run and its children may spend, {@code prices} the prices of its models
 * frozen at admission.
 */
public record FlowBodyInstruction(
    String flow,
    String version,
    Origin origin,
    Optional<String> route,
    JsonNode inventory,
    Optional<SpendLimit> budget,
    ModelPrices prices)
    implements Instruction {
  /** The instruction type of a flow body step. */
  public static final String TYPE = "flow";

  /** The route of every single-file flow's body starts with this. */
  public static final String SOURCE_ROUTE = "source:";

  private static final String FLOW = "flow";
  private static final String VERSION = "version";
  private static final String ORIGIN = "origin";
  private static final String ROUTE = "route";
  private static final String INVENTORY = "mcp";
  private static final String BUDGET = "budget";
  private static final String PRICES = "prices";
  private static final String KIND = "kind";
  private static final String CLASS = "class";
  private static final String SOURCE = "source";
  private static final String CLASS_NAME = "className";
  private static final String SOURCE_HASH = "sourceHash";
  private static final String DIR = "dir";
  private static final String FILE = "file";
  private static final String AT = "instruction";
  private static final String AT_ORIGIN = "instruction.origin";

  public FlowBodyInstruction {
    Objects.requireNonNull(flow, FLOW);
    Objects.requireNonNull(version, VERSION);
    Objects.requireNonNull(origin, ORIGIN);
    Objects.requireNonNull(route, ROUTE);
    Objects.requireNonNull(inventory, INVENTORY);
    Objects.requireNonNull(budget, BUDGET);
    Objects.requireNonNull(prices, PRICES);
  }

  public FlowBodyInstruction(
      String flow, String version, Origin origin, Optional<String> route, JsonNode inventory) {
    this(flow, version, origin, route, inventory, Optional.empty(), ModelPrices.none());
  }

  /** This body with what its run may spend and its models' frozen prices. */
  public FlowBodyInstruction spending(Optional<SpendLimit> limit, ModelPrices frozen) {
    return new FlowBodyInstruction(flow, version, origin, route, inventory, limit, frozen);
  }

  /** The body of a flow admitted now: its route follows from its origin. */
  public static FlowBodyInstruction of(
      String flow, String version, Origin origin, JsonNode inventory) {
    String route =
        switch (origin) {
          // Only a worker that has this class at this version may claim the body.
          case Origin.ClassFlow c -> classRoute(flow, version);
          // Only a worker given this source (by hash) may claim the body.
          case Origin.SourceFlow s -> sourceRoute(s.sourceHash());
        };
    return new FlowBodyInstruction(flow, version, origin, Optional.of(route), inventory);
  }

  /** Where the flow's code comes from: a registered class, or source carried in the journal. */
  public sealed interface Origin {
    String className();

    record ClassFlow(String className) implements Origin {
      public ClassFlow {
        Objects.requireNonNull(className, CLASS_NAME);
      }
    }

    /**
     * A single-file flow: its source, the source's sha256 and, when read from a file, the file's
     * directory (absolute), where its {@code f.sh} / {@code f.run} commands run, and the file
     * itself (absolute), so the run can be started again.
     */
    record SourceFlow(
        String className,
        String source,
        String sourceHash,
        Optional<String> dir,
        Optional<String> file)
        implements Origin {
      public SourceFlow {
        Objects.requireNonNull(className, CLASS_NAME);
        Objects.requireNonNull(source, SOURCE);
        Objects.requireNonNull(sourceHash, SOURCE_HASH);
        Objects.requireNonNull(dir, DIR);
        Objects.requireNonNull(file, FILE);
      }

      public SourceFlow(String className, String source, String sourceHash) {
        this(className, source, sourceHash, Optional.empty(), Optional.empty());
      }

      public SourceFlow(String className, String source, String sourceHash, Optional<String> dir) {
        this(className, source, sourceHash, dir, Optional.empty());
      }
    }
  }

  /** The route of a class-path flow's body: {@code <name>@<version>}. */
  public static String classRoute(String flow, String version) {
    return flow + "@" + version;
  }

  /** The route of a single-file flow's body: {@code source:<sha256 of the source>}. */
  public static String sourceRoute(String sourceHash) {
    return SOURCE_ROUTE + sourceHash;
  }

  /** The directory the body's commands run in: its flow file's, when it has one. */
  public Optional<String> commandDir() {
    return origin instanceof Origin.SourceFlow s ? s.dir() : Optional.empty();
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put(Fields.TYPE, TYPE).put(FLOW, flow).put(VERSION, version);
    ObjectNode from = o.putObject(ORIGIN);
    switch (origin) {
      case Origin.ClassFlow c -> from.put(KIND, CLASS).put(CLASS_NAME, c.className());
      case Origin.SourceFlow s -> {
        from.put(KIND, SOURCE)
            .put(CLASS_NAME, s.className())
            .put(SOURCE_HASH, s.sourceHash())
            .put(SOURCE, s.source());
        s.dir().ifPresent(d -> from.put(DIR, d));
        s.file().ifPresent(f -> from.put(FILE, f));
      }
    }
    route.ifPresent(r -> o.put(ROUTE, r));
    o.set(INVENTORY, inventory);
    budget.ifPresent(b -> o.set(BUDGET, b.toJson()));
    if (!prices.byModel().isEmpty()) {
      o.set(PRICES, prices.toJson());
    }
    return o;
  }

  /**
   * The body {@code json} describes. Refused ({@code invalid_input}) when it is not a {@code flow}
   * instruction, lacks a field, or names an origin kind other than {@code class} or {@code source}.
   */
  public static FlowBodyInstruction fromJson(JsonNode json) {
    Fields.expectType(json, TYPE);
    return new FlowBodyInstruction(
        Fields.text(json, FLOW, AT),
        Fields.text(json, VERSION, AT),
        origin(Fields.object(json, ORIGIN, AT)),
        Fields.optionalText(json, ROUTE, AT),
        Fields.object(json, INVENTORY, AT),
        json.path(BUDGET).isObject()
            ? Optional.of(SpendLimit.fromJson(json.get(BUDGET)))
            : Optional.empty(),
        json.path(PRICES).isObject() ? ModelPrices.fromJson(json.get(PRICES)) : ModelPrices.none());
  }

  /** The body an agent step of type {@code flow} runs; see {@link #fromJson}. */
  public static FlowBodyInstruction of(StepBody.Agent agent) {
    return fromJson(agent.instruction());
  }

  private static Origin origin(JsonNode o) {
    String kind = Fields.text(o, KIND, AT_ORIGIN);
    return switch (kind) {
      case CLASS -> new Origin.ClassFlow(Fields.text(o, CLASS_NAME, AT_ORIGIN));
      case SOURCE ->
          new Origin.SourceFlow(
              Fields.text(o, CLASS_NAME, AT_ORIGIN),
              Fields.text(o, SOURCE, AT_ORIGIN),
              Fields.text(o, SOURCE_HASH, AT_ORIGIN),
              Fields.optionalText(o, DIR, AT_ORIGIN),
              Fields.optionalText(o, FILE, AT_ORIGIN));
      default -> throw Fields.unknownKind(kind, AT_ORIGIN + "." + KIND);
    };
  }
}
