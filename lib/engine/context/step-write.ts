/**
 * A budgeted write of a step, its Decisions recorded in the pass's ledger: the ladder of
 * `bounds/budgeted-write.ts` (writes taken all or none, the request contained by `attempt`, a
 * pass-level failure on up), with the site's own reading of the server's answer as Decisions.
 * {@link stepWrite} is its common case: a failure that only means the object changed since it
 * was read left to the next pass, any other the object's error.
 */

import type { DecisionAction, KindRef } from '../../ports/index.js';
import { type ClusterErrorReason, isClusterError, type ObjectRef } from '../../ports/index.js';
import { budgetedWrite } from '../bounds/budgeted-write.js';
import type { Attempted } from '../errors.js';
import type { DecisionInput } from './ledger.js';
import type { PassContext } from './pass-context.js';

/** What a site decides from a write's answer: Decisions, or none. */
export type Decided = DecisionInput | readonly DecisionInput[] | undefined;

/** One budgeted write of a pass, as {@link passWrite} makes it. */
export interface PassWrite<T> {
  /** The writes to take first, all or none (default 1). */
  readonly writes?: number;
  /** What to do when the budget has not the writes left (the writes are deferred already). */
  readonly whenSpent?: () => void;
  readonly send: () => Promise<T>;
  /** The site's Decisions from the server's answer (its wording, its Skips). */
  readonly decide: (outcome: Attempted<T>) => Decided;
}

/**
 * Makes one budgeted write and records the Decisions it comes to.
 * @returns the server's answer, or undefined when the budget had not the writes left.
 */
export async function passWrite<T>(
  ctx: PassContext,
  write: PassWrite<T>,
): Promise<Attempted<T> | undefined> {
  return budgetedWrite<T, Attempted<T> | undefined>(ctx.scope.bounds, {
    ...(write.writes === undefined ? {} : { writes: write.writes }),
    whenSpent: () => {
      write.whenSpent?.();
      return undefined;
    },
    send: write.send,
    decide: (outcome) => {
      const decided = write.decide(outcome);
      const all: readonly DecisionInput[] =
        decided === undefined ? [] : Array.isArray(decided) ? decided : [decided as DecisionInput];
      for (const decision of all) ctx.ledger.decide(decision);
      return outcome;
    },
  });
}

/** One write, as {@link stepWrite} makes it. */
export interface StepWrite {
  /** The kind the Decision or the error is about. */
  readonly rule: KindRef;
  readonly tenantRef: ObjectRef;
  readonly hostRef: ObjectRef;
  readonly send: () => Promise<unknown>;
  /**
   * Failures that say the object changed since it was read (deleted, bound, updated meanwhile):
   * nothing is recorded, the next pass reads it anew.
   */
  readonly changedMeanwhile?: readonly ClusterErrorReason[];
  /** The Decision the write makes (with its error when it fails); without it a failure is the object's error. */
  readonly decision?: { readonly action: DecisionAction; readonly reason: string };
}

/** Makes one step write (see the module doc): one write of the budget. */
export async function stepWrite(ctx: PassContext, write: StepWrite): Promise<void> {
  const { rule, tenantRef, hostRef, decision } = write;
  await passWrite(ctx, {
    send: write.send,
    decide: (sent) => {
      if (sent.ok) return decision && { ...decision, rule, tenantRef, hostRef };
      const { error } = sent;
      if (write.changedMeanwhile?.some((reason) => isClusterError(error, reason))) return;
      if (decision) return { ...decision, rule, tenantRef, hostRef, error };
      ctx.ledger.errors.add(rule, error, tenantRef, hostRef);
      return;
    },
  });
}
