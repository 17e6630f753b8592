/** Time, injectable so budgets and timestamps are testable. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Waits `ms` milliseconds (a back-off the server asked for). Optional: without it the wait is
   * real time; a test's clock moves its own time instead.
   */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now() };
