package dev.flows.embed;

/**
 * Attempts of this instance's worker since it started ({@link Flows#workerCounts()}): claimed, and
 * how each ended.
 *
 * @param claimed attempts claimed
 * @param completed attempts completed (any outcome the journal accepted)
 * @param leasesLost attempts given up because their lease was lost
 * @param failed attempts that ended with an error and no completion (e.g. the database stayed down)
 */
public record WorkerCounts(long claimed, long completed, long leasesLost, long failed) {}
