package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.sdk.Flow;
import dev.flows.sdk.compile.FlowSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A flow ready to start: its code, where the code comes from (which decides what the journal
 * carries), the servers its source calls (for preflight), and the directory flows.json is looked up
 * from.
 */
public record LoadedFlow(
    Flow flow, FlowBodyInstruction.Origin origin, Set<String> bodyServers, Path configSearchStart) {

  /** Loads {@code NAME.flow.java} (compiled in-process) or a flow class on the class path. */
  public static LoadedFlow load(String fileOrClass, Path workingDir) {
    if (fileOrClass.endsWith(FlowSource.SUFFIX) || fileOrClass.contains("/")) {
      Path file = workingDir.resolve(fileOrClass).toAbsolutePath().normalize();
      if (!Files.isRegularFile(file)) {
        throw new FlowsException(
            ErrorCode.FLOW_NOT_FOUND,
            "no flow file " + file,
            fileOrClass,
            "give the path of a NAME" + FlowSource.SUFFIX + " file, or a flow class name");
      }
      return ofSource(file, FlowSource.compile(file));
    }
    try {
      Class<?> c = Class.forName(fileOrClass);
      if (!Flow.class.isAssignableFrom(c)) {
        throw new FlowsException(
            ErrorCode.FLOW_INVALID,
            fileOrClass + " does not implement dev.flows.sdk.Flow",
            fileOrClass,
            "name a class that implements Flow");
      }
      Flow flow = (Flow) c.getDeclaredConstructor().newInstance();
      return new LoadedFlow(
          flow,
          new FlowBodyInstruction.Origin.ClassFlow(c.getName()),
          Set.of(),
          workingDir.toAbsolutePath());
    } catch (ClassNotFoundException e) {
      throw new FlowsException(
          ErrorCode.FLOW_NOT_FOUND,
          "no flow file or class named " + fileOrClass,
          fileOrClass,
          "give the path of a NAME" + FlowSource.SUFFIX + " file, or a class on the class path");
    } catch (ReflectiveOperationException e) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          "cannot instantiate " + fileOrClass + ": " + e,
          fileOrClass,
          "give the flow class a public no-argument constructor");
    }
  }

  /** The single-file flow {@code file} (an absolute path), compiled as {@code c}. */
  static LoadedFlow ofSource(Path file, FlowSource.Compiled c) {
    return new LoadedFlow(
        c.flow(),
        new FlowBodyInstruction.Origin.SourceFlow(
            c.className(),
            c.source(),
            c.sourceHash(),
            java.util.Optional.of(file.getParent().toString()),
            java.util.Optional.of(file.toString())),
        FlowSource.mcpServersCalled(c.source()),
        file.getParent());
  }

  /**
   * The tools the body names by literals, {@code f.mcp("s").tool("t")}, by server (source only).
   */
  public Map<String, Set<String>> bodyTools() {
    return compiled().map(c -> FlowSource.mcpToolsCalled(c.source())).orElse(Map.of());
  }

  public Optional<FlowSource.Compiled> compiled() {
    return origin instanceof FlowBodyInstruction.Origin.SourceFlow s
        ? Optional.of(new FlowSource.Compiled(flow, s.className(), s.source(), s.sourceHash()))
        : Optional.empty();
  }
}
