/**
 * Garbage collection: which managed host objects lost their tenant source, and deleting them
 * safely: only this tenant's copies of this kind, only after a complete tenant listing, each with
 * uid and resourceVersion preconditions (a 409 means: look again next pass, never retry blind).
 */
import { runPool } from '../../common/index.js';
import { type ClusterApi, isClusterError, type KubeObject } from '../../ports/index.js';
import { deleteAttempt, oldestFirst } from '../context/convergence.js';
import { decide, type PassContext } from '../context/pass-context.js';
import { PassError } from '../errors.js';
import { reverseLookup } from '../names/reverse-mapping.js';
import type { KindRule } from '../policy/policy.js';
import type { GcCandidate, TenantListing } from './candidates.js';
import { planGc } from './candidates.js';
import { guardDeletes } from './delete-guard.js';

/**
 * Deletes one candidate with uid and resourceVersion preconditions, so a host object recreated
 * under the same name, adopted by an operator or updated by another pass since it was listed is
 * never deleted by mistake (the server answers 409 Conflict instead). An object already gone is reported as such.
 */
export async function deleteCandidate(
  hostApi: ClusterApi,
  candidate: GcCandidate,
): Promise<'deleted' | 'already-gone'> {
  const { metadata } = candidate.object;
  try {
    await hostApi.delete(candidate.object, metadata.namespace, metadata.name, {
      uid: metadata.uid as string,
      ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
    });
  } catch (error) {
    if (!isClusterError(error, 'NotFound')) throw error;
    return 'already-gone';
  }
  return 'deleted';
}

/** Why a GC delete refused by its preconditions (409) was not made. */
export function changedSinceListed(reason: string): string {
  return `${reason}, but the host copy changed after it was listed (409 Conflict on the uid and resourceVersion preconditions); not deleted, the next pass checks it again`;
}

async function deleteOne(ctx: PassContext, rule: KindRule, candidate: GcCandidate): Promise<void> {
  const tenantRef = { namespace: candidate.ref.virtualNamespace, name: candidate.ref.virtualName };
  const hostRef = {
    namespace: candidate.object.metadata.namespace ?? ctx.hostNamespace,
    name: candidate.object.metadata.name,
  };
  // A delete the host keeps refusing backs off instead of spending the budget every pass.
  const attempt = deleteAttempt(ctx, rule, candidate.object, { tenantRef, hostRef });
  if (!attempt || !ctx.bounds.reserveWrite()) return;
  let failure: unknown;
  let gone = false;
  if (!ctx.dryRun) {
    try {
      gone = (await deleteCandidate(ctx.hostApi, candidate)) === 'already-gone';
    } catch (error) {
      if (error instanceof PassError) throw error; // e.g. another pass holds the tenant's lease
      failure = error;
    }
  }
  if (isClusterError(failure, 'Conflict')) {
    // 409 on the uid + resourceVersion precondition: the copy changed after it was listed (an
    // operator adopted it, another pass updated it). Never retried blind: the next pass re-lists
    // it and decides again from what it then is.
    attempt.done(undefined);
    decide(ctx, 'Skip', rule, { tenantRef, hostRef }, changedSinceListed(candidate.reason));
    return;
  }
  attempt.done(failure);
  const reason = gone ? `${candidate.reason}; the host copy was already gone` : candidate.reason;
  decide(ctx, 'Delete', rule, { tenantRef, hostRef }, reason, failure, gone);
}

function isCopyOf(object: KubeObject, listing: TenantListing): boolean {
  const ref = reverseLookup(object);
  return ref?.tenant === listing.tenant && ref.kind === listing.kind;
}

/** This tenant's copies of the kind that a host finalizer holds in deletion. */
function terminatingCopies(hostObjects: readonly KubeObject[], listing: TenantListing): number {
  // Terminating first: few are, so few copies need their reverse mapping read.
  return hostObjects.filter((o) => o.metadata.deletionTimestamp && isCopyOf(o, listing)).length;
}

/**
 * Garbage-collects one kind, given the host objects listed for it and the tenant listing. Runs
 * only from a complete listing: a listing that failed or that a bound cut short says nothing
 * about the sources it did not reach, so it must never delete their copies.
 * @returns whether GC ran, and how many candidates it found (a bound may leave some for the next
 * pass).
 */
export async function collectGarbage(
  ctx: PassContext,
  rule: KindRule,
  hostObjects: readonly KubeObject[],
  listing: TenantListing & { complete: boolean },
): Promise<{ ran: boolean; candidates: number }> {
  if (!listing.complete || ctx.bounds.isStopped()) return { ran: false, candidates: 0 };
  const planned = planGc(hostObjects, listing);
  ctx.terminating.count += terminatingCopies(hostObjects, listing);
  if (planned.length === 0) return { ran: true, candidates: 0 };
  const changed = await ctx.recheckPolicy();
  if (changed) {
    ctx.bounds.halt(changed);
    return { ran: false, candidates: 0 };
  }
  const managed = hostObjects.filter((o) => isCopyOf(o, listing)).length;
  const verdict = guardDeletes(
    ctx.tenant,
    rule.kind,
    planned,
    managed,
    ctx.deleteGuard,
    ctx.confirmedDeletes,
  );
  if (verdict.held) {
    ctx.errors.kindIncomplete(rule, verdict.held.reason);
    ctx.warnings.push(verdict.held.warning);
  }
  // Oldest first, so under a write budget no orphan waits behind newer ones (README "Bounds").
  const candidates = oldestFirst(verdict.allowed);
  await runPool(
    candidates,
    ctx.bounds.budget.concurrency,
    (candidate) => deleteOne(ctx, rule, candidate),
    () => ctx.bounds.isStopped(),
  );
  return { ran: true, candidates: candidates.length };
}
