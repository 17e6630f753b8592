/**
 * Garbage collection: which managed host objects lost their tenant source, and deleting them
 * safely: only this tenant's copies of this kind, only after a complete tenant listing, each with
 * uid and resourceVersion preconditions (a 409 means: look again next pass, never retry blind).
 *
 * The mass-delete guard (`delete-guard.ts`) decides from the kind's full count of copies. On the
 * resumed path GC receives only the copies of the sources that changed, so the guard could not
 * hold anything there; what keeps a resumed pass inside it is the bound checked before GC runs,
 * `resumedPassFallback` in `delete-guard.ts`: more deletions than the guard could ever let
 * through send the kind to the full path, where this module sees every copy.
 */
import { runPool } from '../../common/index.js';
import { type ClusterApi, isClusterError, type KubeObject } from '../../ports/index.js';
import { deleteAttempt, oldestFirst } from '../context/convergence.js';
import type { PassContext } from '../context/pass-context.js';
import { passWrite } from '../context/step-write.js';
import { deleteAsRead } from '../names/preconditions.js';
import { isOurCopy } from '../names/reverse-mapping.js';
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
  try {
    const grace = candidate.gracePeriodSeconds;
    if (grace === undefined) await deleteAsRead(hostApi, candidate.object, candidate.object);
    else
      await deleteAsRead(hostApi, candidate.object, candidate.object, undefined, {
        gracePeriodSeconds: grace,
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
    namespace: candidate.object.metadata.namespace ?? ctx.scope.hostNamespace,
    name: candidate.object.metadata.name,
  };
  // A delete the host keeps refusing backs off instead of spending the budget every pass.
  const retry = deleteAttempt(ctx, rule, candidate.object, { tenantRef, hostRef });
  if (!retry) return;
  // A pass-level failure (another pass holds the tenant's lease) goes on up.
  await passWrite(ctx, {
    send: () => deleteCandidate(ctx.scope.hostApi, candidate),
    decide: (deleted) => {
      const failure = deleted.ok ? undefined : deleted.error;
      const gone = deleted.ok && deleted.value === 'already-gone';
      if (isClusterError(failure, 'Conflict')) {
        // 409 on the uid + resourceVersion precondition: the copy changed after it was listed (an
        // operator adopted it, another pass updated it). Never retried blind: the next pass
        // re-lists it and decides again from what it then is.
        retry.done(undefined);
        return {
          action: 'Skip',
          rule,
          tenantRef,
          hostRef,
          reason: changedSinceListed(candidate.reason),
        };
      }
      retry.done(failure);
      const reason = gone
        ? `${candidate.reason}; the host copy was already gone`
        : candidate.reason;
      return {
        action: 'Delete',
        rule,
        tenantRef,
        hostRef,
        reason,
        error: failure,
        alreadyGone: gone,
      };
    },
  });
}

/** This tenant's copies of the kind that a host finalizer holds in deletion. */
function terminatingCopies(
  hostObjects: readonly KubeObject[],
  listing: TenantListing,
): KubeObject[] {
  // Terminating first: few are, so few copies need their reverse mapping read.
  return hostObjects.filter((o) => o.metadata.deletionTimestamp && isOurCopy(o, listing));
}

/**
 * Copies a kind keeps although their sources are gone, by copy name, each with why (in words that
 * follow the candidate's own reason): a Service copy whose address host Pods still use
 * (`kinds/service/nameserver-hold.ts`). Asked only for the pass's candidates.
 */
export type GcHold = (
  ctx: PassContext,
  candidates: readonly KubeObject[],
) => Promise<ReadonlyMap<string, string>>;

/** The candidates `hold` keeps become Skips saying why; the rest are returned. */
async function withoutHeld(
  ctx: PassContext,
  rule: KindRule,
  planned: GcCandidate[],
  hold: GcHold | undefined,
): Promise<GcCandidate[]> {
  if (!hold) return planned;
  const kept = await hold(
    ctx,
    planned.map((c) => c.object),
  );
  if (kept.size === 0) return planned;
  return planned.filter((candidate) => {
    const why = kept.get(candidate.object.metadata.name);
    if (why === undefined) return true;
    ctx.ledger.decide({
      action: 'Skip',
      rule,
      tenantRef: { namespace: candidate.ref.virtualNamespace, name: candidate.ref.virtualName },
      hostRef: {
        namespace: candidate.object.metadata.namespace ?? ctx.scope.hostNamespace,
        name: candidate.object.metadata.name,
      },
      reason: `${candidate.reason}; ${why}`,
    });
    return false;
  });
}

/**
 * Garbage-collects one kind, given the host objects listed for it and the tenant listing. Runs
 * only from a complete listing: a listing that failed or that a bound cut short says nothing
 * about the sources it did not reach, so it must never delete their copies. What `hold` (the kind
 * module's) keeps is a Skip each, neither deleted nor counted by the mass-delete guard.
 * @returns whether GC ran, and how many candidates it found (a bound may leave some for the next
 * pass).
 */
export async function collectGarbage(
  ctx: PassContext,
  rule: KindRule,
  hostObjects: readonly KubeObject[],
  listing: TenantListing & { complete: boolean },
  hold?: GcHold,
): Promise<{ ran: boolean; candidates: number }> {
  if (!listing.complete || ctx.scope.bounds.isStopped()) return { ran: false, candidates: 0 };
  const planned = await withoutHeld(ctx, rule, planGc(hostObjects, listing), hold);
  // Counted once each: apply counts the copies a source still wants too.
  for (const copy of terminatingCopies(hostObjects, listing)) ctx.ledger.countTerminating(copy);
  if (planned.length === 0) return { ran: true, candidates: 0 };
  const changed = await ctx.memory.recheckPolicy();
  if (changed) {
    ctx.scope.bounds.halt(changed);
    return { ran: false, candidates: 0 };
  }
  const managed = hostObjects.filter((o) => isOurCopy(o, listing)).length;
  const verdict = guardDeletes({
    tenant: ctx.scope.tenant,
    kind: rule.kind,
    candidates: planned,
    managedCopies: managed,
    guard: ctx.scope.deleteGuard,
    confirmed: ctx.memory.confirmedDeletes,
  });
  if (verdict.held) {
    ctx.ledger.errors.kindIncomplete(rule, verdict.held.reason);
    ctx.ledger.warn(verdict.held.warning);
    // Each held deletion is a Skip that says why the copy stays, so `tenantplane plan` lists
    // what a confirmation would delete and `tenantplane explain` answers for each copy.
    for (const held of verdict.held.candidates)
      ctx.ledger.decide({
        action: 'Skip',
        rule,
        tenantRef: { namespace: held.ref.virtualNamespace, name: held.ref.virtualName },
        hostRef: {
          namespace: held.object.metadata.namespace ?? ctx.scope.hostNamespace,
          name: held.object.metadata.name,
        },
        reason: `${held.reason}; ${verdict.held.skipNote}`,
      });
  }
  // Oldest first, so under a write budget no orphan waits behind newer ones (README "Bounds").
  const candidates = oldestFirst(verdict.allowed);
  await runPool(
    candidates,
    ctx.scope.bounds.budget.concurrency,
    (candidate) => deleteOne(ctx, rule, candidate),
    () => ctx.scope.bounds.isStopped(),
  );
  return { ran: true, candidates: candidates.length };
}
