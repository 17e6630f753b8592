/**
 * The bounds of one pass (deadline, write budget, page size, concurrency) and the stop state they
 * drive: once the deadline (or a 429) is hit, no new work starts, work in flight finishes, and the
 * first bound hit is the reason the pass reports. A spent write budget only defers writes: the
 * pass still lists every kind, so every kind's garbage collection runs, within its share.
 */
import { plural } from '../../common/index.js';
import { type Clock, isClusterError } from '../../ports/index.js';
import { Throttle, ThrottledError } from './throttle.js';

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
  /**
   * Milliseconds after `deadline` for what follows the work: status, Events, releasing the lease
   * (default `DEFAULT_REPORT_RESERVE_MS`). Every request ends by `deadline` + this reserve.
   */
  reportReserveMs?: number;
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
  /** Needed writes the budget refused this pass: the next pass makes them. */
  deferred = 0;
  /** Why the pass stopped starting work (deadline, 429, halt). */
  private reason: string | undefined;
  /** Whether the write budget ran out before anything stopped the pass. */
  private spentFirst = false;
  /** Total writes the kind being synced may reach (see {@link beginKind}). */
  private kindLimit: number | undefined;

  /**
   * `throttle`: the pass's back-off on 429 (`throttle.ts`), whose clients the pass sends through;
   * a fresh one (nothing waited) when the caller has none.
   */
  constructor(
    readonly budget: Budget,
    private readonly clock: Clock,
    readonly throttle: Throttle = new Throttle(clock),
  ) {}

  /**
   * Why the pass is short of complete because of a bound: the first one hit. A spent write budget
   * does not stop the pass (listings and the write-free rest of the work go on, so every kind is
   * listed and garbage-collected), but it leaves writes for the next pass.
   */
  get stopReason(): string | undefined {
    if (!this.spentFirst) return this.reason;
    const { maxWrites = 0 } = this.budget;
    return `the write budget of ${plural(maxWrites, 'write')} was spent`;
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

  /**
   * Starts kind `index` (0-based) of the `count` kinds of the policy: it may spend the budget
   * except a fair share, floor(maxWrites / count), kept for each kind after it. So every kind gets
   * at least its share in every pass (when maxWrites >= count), and what a kind leaves unused goes
   * to the kinds after it. Deletes come first within a kind (`kind-writes.ts`).
   */
  beginKind(index: number, count: number): void {
    const { maxWrites } = this.budget;
    if (maxWrites === undefined || count <= 1) {
      this.kindLimit = undefined;
      return;
    }
    const share = Math.floor(maxWrites / count);
    if (share > 0) {
      this.kindLimit = maxWrites - Math.max(0, count - index - 1) * share;
      return;
    }
    // Fewer writes than kinds: one write each for a window of kinds that rotates from pass to
    // pass, so no kind waits behind the earlier ones forever.
    let reserved = 0;
    for (let later = index + 1; later < count; later++) if (this.hasTurn(later, count)) reserved++;
    this.kindLimit = maxWrites - reserved;
  }

  /** Where the window of kinds with a write starts this pass (see {@link beginKind}). */
  private turnOffset = 0;

  /** Rotates the window of kinds that get a write when the budget has fewer writes than kinds. */
  rotateTurns(seed: number): void {
    this.turnOffset = Math.abs(Math.floor(seed));
  }

  private hasTurn(index: number, count: number): boolean {
    const maxWrites = this.budget.maxWrites ?? count;
    return (index - (this.turnOffset % count) + count) % count < maxWrites;
  }

  /** Ends the current kind's share: later work draws on the whole budget again. */
  endKind(): void {
    this.kindLimit = undefined;
  }

  /** Writes that may still start now (the current kind's share included); Infinity unbounded. */
  get writesLeft(): number {
    const limit = Math.min(this.budget.maxWrites ?? Infinity, this.kindLimit ?? Infinity);
    return Math.max(0, limit - this.writes);
  }

  /**
   * Whether one unit of `count` writes fits, after `planned` more writes already promised. A unit
   * that must not be split (a replacement: delete, then create) may overrun the current kind's
   * share while the kind has a write of its share left; never the whole budget.
   */
  fits(count: number, planned = 0): boolean {
    const used = this.writes + planned;
    const total = (this.budget.maxWrites ?? Infinity) - used;
    const share = (this.kindLimit ?? Infinity) - used;
    return count <= total && (count <= share || share >= 1);
  }

  /** Records `count` needed writes left for the next pass because the budget is spent. */
  defer(count = 1): void {
    this.deferred += count;
    if (this.reason === undefined) this.spentFirst = true;
  }

  /**
   * Takes `count` writes (default 1) from the budget, all or none (see {@link fits}): false when
   * they do not fit (the writes are deferred to the next pass; the pass itself goes on).
   */
  reserveWrite(count = 1): boolean {
    if (!this.fits(count)) {
      this.defer(count);
      return false;
    }
    this.writes += count;
    return true;
  }

  /** Stops the pass for a reason of its own (e.g. the policy changed underneath it). */
  halt(reason: string): void {
    this.reason ??= reason;
  }

  /**
   * An API server answering 429 is overloaded (API Priority and Fairness): on a shared host,
   * pressing on with more writes makes it worse for every tenant. A 429 the pass could wait for
   * never gets here (`throttle.ts` sent the request again); one it could not stops the pass from
   * starting work, as if a bound had been hit, and the next pass continues.
   */
  backOffIfThrottled(error: unknown): void {
    if (error instanceof ThrottledError) {
      this.reason ??= `${error.why}, so the pass stopped early`;
      return;
    }
    if (!isClusterError(error, 'TooManyRequests')) return;
    const after =
      error.retryAfterSeconds === undefined ? '' : `, retry after ${error.retryAfterSeconds} s`;
    this.reason ??= `an API server asked for less load (429 Too Many Requests${after}), so the pass stopped early`;
  }
}
