/**
 * The one write ladder of the engine: every budgeted write (a copy's create, update or
 * replacement, a token, an ending, a tenant Node, a realignment, an Event back, a class copy, a GC
 * delete) takes its writes from the budget here, all or none, sends its request contained by
 * `attempt` (a pass-level failure goes on up), and turns the server's answer into what the site
 * decides. The sites keep their own wording; the order of those steps is written once.
 */
import { type Attempted, attempt } from '../errors.js';

/** What a write takes its writes from: the pass's bounds, or what apply is given of them. */
export interface WriteBudget {
  /** Takes `count` writes (default 1), all or none; false when they do not fit. */
  reserveWrite(count?: number): boolean;
}

/** One budgeted write, as {@link budgetedWrite} makes it; `D` is what the site decides. */
export interface BudgetedWrite<T, D> {
  /**
   * The writes to take first, all or none (default 1): two for a unit that must not be split
   * (delete, then create); 0 for a request of such a unit, its write taken with the unit's.
   */
  readonly writes?: number;
  /** What the site decides when the budget has not the writes left (e.g. list it again next pass). */
  readonly whenSpent: () => D;
  /** The write itself (every request of the unit). */
  readonly send: () => Promise<T>;
  /** What the site decides from the server's answer: its stored object, or its failure. */
  readonly decide: (outcome: Attempted<T>) => D | Promise<D>;
}

/** Makes one budgeted write (see the module doc): what `whenSpent` or `decide` returned. */
export async function budgetedWrite<T, D>(
  budget: WriteBudget,
  write: BudgetedWrite<T, D>,
): Promise<D> {
  const writes = write.writes ?? 1;
  if (writes > 0 && !budget.reserveWrite(writes)) return write.whenSpent();
  return write.decide(await attempt(write.send));
}

/**
 * The `decide` of a unit whose requests decide for themselves (a replacement, a realignment): its
 * answer as it is, and a failure it did not contain goes on up, as if no `attempt` stood between.
 */
export function passedOn<T>(outcome: Attempted<T>): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
