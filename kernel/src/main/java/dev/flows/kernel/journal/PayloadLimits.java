package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * The largest payloads the journal takes, the one owner of the rule: a value is measured as the
 * journal stores it, its compact JSON encoding in UTF-8 bytes, and past its bound it is refused
 * {@code payload_too_large} with the limit's name, the size and the bound, before anything of it is
 * written. Both journals refuse run inputs (a schedule's too), signal payloads, input answers and
 * resolved outputs past the limits they are opened with ({@link #DEFAULTS} unless set; {@link
 * #requireRunInput}, {@link #requireScheduleInput}, {@link #requireSignal}, {@link #requireAnswer},
 * {@link #requireResolvedOutput}); a worker bounds the step outputs and receipts it journals by its
 * own limits ({@code WorkerConfig}).
 *
 * @param maxRunInputBytes a run's input (each step's input of the spec it is admitted with)
 * @param maxStepOutputBytes a step's output ({@code f.step}'s value, a command's or body's output,
 *     an MCP call's receipt, which is its step's output)
 * @param maxReceiptBytes an MCP call's receipt (the tool's answer with its call)
 * @param maxSignalBytes a signal's payload
 * @param maxAnswerBytes an answer to a call parked for input ({@code runs answer})
 */
public record PayloadLimits(
    long maxRunInputBytes,
    long maxStepOutputBytes,
    long maxReceiptBytes,
    long maxSignalBytes,
    long maxAnswerBytes) {

  /** Each limit's default: 4 MiB, the MCP client's largest message by default. */
  public static final long DEFAULT_MAX_BYTES = 4L * 1024 * 1024;

  /** The smallest bound a limit may be set to: a receipt of a small call must fit. */
  public static final long MIN_BYTES = 4096;

  /** The largest bound: what one Postgres JSONB value can hold, rounded down. */
  public static final long MAX_BYTES = 256L * 1024 * 1024 - 1;

  public static final PayloadLimits DEFAULTS =
      new PayloadLimits(
          DEFAULT_MAX_BYTES,
          DEFAULT_MAX_BYTES,
          DEFAULT_MAX_BYTES,
          DEFAULT_MAX_BYTES,
          DEFAULT_MAX_BYTES);

  private static final ObjectMapper MAPPER = Jackson.mapper();

  public PayloadLimits {
    requireBound("maxRunInputBytes", maxRunInputBytes);
    requireBound("maxStepOutputBytes", maxStepOutputBytes);
    requireBound("maxReceiptBytes", maxReceiptBytes);
    requireBound("maxSignalBytes", maxSignalBytes);
    requireBound("maxAnswerBytes", maxAnswerBytes);
  }

  public PayloadLimits withMaxRunInputBytes(long bytes) {
    return new PayloadLimits(
        bytes, maxStepOutputBytes, maxReceiptBytes, maxSignalBytes, maxAnswerBytes);
  }

  public PayloadLimits withMaxSignalBytes(long bytes) {
    return new PayloadLimits(
        maxRunInputBytes, maxStepOutputBytes, maxReceiptBytes, bytes, maxAnswerBytes);
  }

  public PayloadLimits withMaxAnswerBytes(long bytes) {
    return new PayloadLimits(
        maxRunInputBytes, maxStepOutputBytes, maxReceiptBytes, maxSignalBytes, bytes);
  }

  public PayloadLimits withMaxStepOutputBytes(long bytes) {
    return new PayloadLimits(
        maxRunInputBytes, bytes, maxReceiptBytes, maxSignalBytes, maxAnswerBytes);
  }

  public PayloadLimits withMaxReceiptBytes(long bytes) {
    return new PayloadLimits(
        maxRunInputBytes, maxStepOutputBytes, bytes, maxSignalBytes, maxAnswerBytes);
  }

  /** Refuses a run whose spec holds a step input past {@link #maxRunInputBytes}. */
  public void requireRunInput(RunSpec spec) {
    for (StepSpec s : spec.steps()) {
      require(
          "maxRunInputBytes",
          "the run's input",
          s.input(),
          maxRunInputBytes,
          "run " + spec.name() + " step " + s.id(),
          "pass a smaller input: keep large data outside the journal (a file, a store) and pass"
              + " its reference");
    }
  }

  /**
   * Refuses a schedule whose input (every tick's run input) is past {@link #maxRunInputBytes}:
   * refused when the schedule is written, not tick by tick.
   */
  public void requireScheduleInput(String schedule, JsonNode input) {
    require(
        "maxRunInputBytes",
        "schedule " + schedule + "'s input",
        input,
        maxRunInputBytes,
        "schedule " + schedule,
        "pass a smaller input: keep large data outside the journal (a file, a store) and pass"
            + " its reference");
  }

  /** Refuses a signal payload past {@link #maxSignalBytes}. */
  public void requireSignal(String name, JsonNode payload) {
    require(
        "maxSignalBytes",
        "signal '" + name + "''s payload",
        payload,
        maxSignalBytes,
        "signal " + name,
        "send a smaller payload: keep large data outside the journal and send its reference");
  }

  /** Refuses an input answer past {@link #maxAnswerBytes}. */
  public void requireAnswer(InputAnswer answer, String place) {
    if (answer instanceof InputAnswer.Accept a) {
      require(
          "maxAnswerBytes",
          "the answer",
          a.response(),
          maxAnswerBytes,
          place,
          "answer with less: keep large data outside the journal and answer with its reference");
    }
  }

  /** Refuses a step output past {@link #maxStepOutputBytes}. */
  public void requireStepOutput(JsonNode output, String place) {
    require(
        "maxStepOutputBytes",
        "the step's output",
        output,
        maxStepOutputBytes,
        place,
        "return less from the step (keep large data outside the journal and return its"
            + " reference), or raise the worker's --max-output-bytes");
  }

  /**
   * Refuses a body's memo ({@code what}: an {@code f.llm} call's answer) past {@link
   * #maxStepOutputBytes}: a memo is part of its step's journaled result.
   */
  public void requireMemo(String what, JsonNode memo, String place) {
    require(
        "maxStepOutputBytes",
        what,
        memo,
        maxStepOutputBytes,
        place,
        "ask for less (a shorter answer, a smaller schema), or raise the worker's"
            + " --max-output-bytes");
  }

  /**
   * Refuses an operator's output for a parked step ({@code runs resolve --performed}) past {@link
   * #maxStepOutputBytes}: it becomes the step's output.
   */
  public void requireResolvedOutput(JsonNode output, String place) {
    require(
        "maxStepOutputBytes",
        "the resolved output",
        output,
        maxStepOutputBytes,
        place,
        "resolve with a smaller output: keep large data outside the journal and give its"
            + " reference");
  }

  /** Refuses an MCP call's receipt past {@code bound} (this worker's, or its server's). */
  public static void requireReceipt(JsonNode receipt, long bound, String place) {
    require(
        "maxReceiptBytes",
        "the call's receipt",
        receipt,
        bound,
        place,
        "ask the tool for less, or raise the server's limits.maxResultBytes in flows.json (or"
            + " the worker's --max-receipt-bytes)");
  }

  /**
   * The size of {@code value} as the journal stores it: its compact JSON encoding in UTF-8 bytes,
   * counted as it is written, never held.
   */
  public static long encodedSize(JsonNode value) {
    Counter c = new Counter();
    try {
      MAPPER.writeValue(c, value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return c.count;
  }

  private static void require(
      String limit, String what, JsonNode value, long bound, String place, String fix) {
    long size = encodedSize(value);
    if (size > bound) {
      throw new FlowsException(
          ErrorCode.PAYLOAD_TOO_LARGE,
          what + " is " + size + " bytes of JSON, past " + limit + " (" + bound + " bytes)",
          place,
          fix);
    }
  }

  private static void requireBound(String name, long bytes) {
    if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          name + " must be " + MIN_BYTES + ".." + MAX_BYTES + " bytes, not " + bytes,
          name,
          "give a byte count, e.g. " + DEFAULT_MAX_BYTES + " (the default)");
    }
  }

  /** Counts the bytes written to it. */
  private static final class Counter extends OutputStream {
    private long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }
}
