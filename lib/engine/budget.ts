/**
 * The bounds of one pass (deadline, write budget, page size, concurrency) and the stop state they
 * drive: once a bound is hit, no new work starts, work in flight finishes, and the first bound hit
 * is the reason the pass reports.
 */
import { plural } from '../common/index.js';
import { type Clock, isClusterError } from '../ports/index.js';

/** Bounds of one pass. */
export interface Budget {
  /** Epoch milliseconds after which no new work starts. */
  deadline?: number;
  /** Maximum write requests (create, update, delete) the pass may start. */
  maxWrites?: number;
  /** LIST page size (`limit`). */
  pageSize: number;
  /** Writes in flight at once. */
  concurrency: number;
}

/** Defaults for the budget fields a caller leaves out. */
export const DEFAULT_BUDGET: Budget = Object.freeze({ pageSize: 500, concurrency: 8 });

/** The budget with defaults filled in (an explicit `undefined` means the default too). */
export function effectiveBudget(partial: Partial<Budget> = {}): Budget {
  const positive = (value: number | undefined, fallback: number) =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(1, Math.floor(value));
  const budget: Budget = {
    pageSize: positive(partial.pageSize, DEFAULT_BUDGET.pageSize),
    concurrency: positive(partial.concurrency, DEFAULT_BUDGET.concurrency),
  };
  // A bound that is not a number fails closed (no writes, already past), never open.
  if (partial.deadline !== undefined)
    budget.deadline = Number.isNaN(partial.deadline) ? 0 : partial.deadline;
  if (partial.maxWrites !== undefined)
    budget.maxWrites = Number.isNaN(partial.maxWrites)
      ? 0
      : Math.max(0, Math.floor(partial.maxWrites));
  return budget;
}

/** A pass's spending against its budget, and why it stopped, if it did. */
export class PassBounds {
  /** Writes started so far (dry runs count would-be writes, so they stop where a real pass would). */
  writes = 0;
  private reason: string | undefined;

  constructor(
    readonly budget: Budget,
    private readonly clock: Clock,
  ) {}

  /** Why the pass stopped early, once a bound was hit. */
  get stopReason(): string | undefined {
    return this.reason;
  }

  /**
   * True once a bound has stopped the pass. The deadline is latched here, when it is first seen to
   * have passed, so the bound hit first is the one reported.
   */
  isStopped(): boolean {
    if (this.reason) return true;
    const { deadline } = this.budget;
    if (deadline !== undefined && this.clock.now() >= deadline) {
      this.reason = `the pass deadline (${new Date(deadline).toISOString()}) was reached`;
      return true;
    }
    return false;
  }

  /** Takes one write from the budget; false (and the pass stops) when it is spent. */
  reserveWrite(): boolean {
    const { maxWrites } = this.budget;
    if (maxWrites !== undefined && this.writes >= maxWrites) {
      this.reason ??= `the write budget of ${plural(maxWrites, 'write')} was spent`;
      return false;
    }
    this.writes += 1;
    return true;
  }

  /**
   * An API server answering 429 is overloaded (API Priority and Fairness): on a shared host,
   * pressing on with more writes makes it worse for every tenant. The pass stops starting work,
   * as if a bound had been hit, and the next scheduled pass continues.
   */
  backOffIfThrottled(error: unknown): void {
    if (!isClusterError(error, 'TooManyRequests')) return;
    const after =
      error.retryAfterSeconds === undefined ? '' : `, retry after ${error.retryAfterSeconds} s`;
    this.reason ??= `an API server asked for less load (429 Too Many Requests${after}), so the pass stopped early`;
  }
}
