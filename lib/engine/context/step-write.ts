/**
 * One write of a step outside apply and GC (a token Secret, a binding, a status, a tenant Node, a
 * class copy, an Event copy, an ending): the write budget first, the request contained by
 * `attempt` (a pass-level failure goes on up), a failure that only means the object changed since
 * it was read left to the next pass, and the Decision or the object's error recorded.
 */

import type { DecisionAction, KindRef } from '../../ports/index.js';
import { type ClusterErrorReason, isClusterError, type ObjectRef } from '../../ports/index.js';
import { attempt } from '../errors.js';
import type { PassContext } from './pass-context.js';

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
  /** Whether the write takes one of the budget's writes first (default); false: taken already. */
  readonly budgeted?: boolean;
}

/** What became of a {@link StepWrite}. */
export type StepWritten =
  | { result: 'written' }
  | { result: 'deferred' }
  | { result: 'changed'; error: unknown }
  | { result: 'failed'; error: unknown };

/** Makes one step write (see the module doc). */
export async function stepWrite(ctx: PassContext, write: StepWrite): Promise<StepWritten> {
  const { rule, tenantRef, hostRef, decision } = write;
  if (write.budgeted !== false && !ctx.scope.bounds.reserveWrite()) return { result: 'deferred' };
  const sent = await attempt(write.send);
  if (sent.ok) {
    if (decision) ctx.ledger.decide({ ...decision, rule, tenantRef, hostRef });
    return { result: 'written' };
  }
  const { error } = sent;
  if (write.changedMeanwhile?.some((reason) => isClusterError(error, reason))) {
    return { result: 'changed', error };
  }
  if (decision) ctx.ledger.decide({ ...decision, rule, tenantRef, hostRef, error });
  else ctx.ledger.errors.add(rule, error, tenantRef, hostRef);
  return { result: 'failed', error };
}
