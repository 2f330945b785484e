package dev.flows.embed;

/**
 * The payload limits this instance's journal holds ({@link Flows#journalLimits()}): what {@link
 * FlowsBuilder#payloadLimits}, the worker's options or flows.json's {@code limits} set, else the 4
 * MiB default; a console mounted in the same service opens its journal with them.
 *
 * @param maxRunInputBytes the largest run input a start may carry
 * @param maxSignalBytes the largest signal payload
 * @param maxAnswerBytes the largest answer to a call parked for input
 */
public record JournalLimits(long maxRunInputBytes, long maxSignalBytes, long maxAnswerBytes) {}
