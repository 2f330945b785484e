package dev.flows.worker;

/**
 * Counters of one worker since it started.
 *
 * @param claimed attempts claimed
 * @param completed attempts completed (any outcome the journal accepted)
 * @param leaseLost attempts given up because their lease was lost
 * @param failed attempts that ended with an error and no completion (e.g. the database stayed down)
 * @param renewals successful lease renewals of completed attempts
 * @param congestedClaims times the claim loop took no work for a poll interval because callers kept
 *     waiting for a database connection
 */
public record WorkerStats(
    long claimed,
    long completed,
    long leaseLost,
    long failed,
    long renewals,
    long congestedClaims) {
  public long ended() {
    return completed + leaseLost + failed;
  }
}
