/**
 * Garbage collection: which managed host objects lost their tenant source, and deleting them
 * safely: only this tenant's copies of this kind, only after a complete tenant listing, each with
 * a uid precondition.
 */
import { runPool } from '../common/index.js';
import { type ClusterApi, isClusterError, type KubeObject } from '../ports/index.js';
import { decide, type PassContext } from './pass-context.js';
import type { KindRule } from './policy.js';
import { type ReverseRef, reverseLookup } from './reverse-mapping.js';

/** A host object to delete and why. */
export interface GcCandidate {
  object: KubeObject;
  ref: ReverseRef;
  reason: string;
}

/** The key of a tenant source within one kind: `<virtual namespace>/<name>`. */
export function sourceKey(virtualNamespace: string, virtualName: string): string {
  return `${virtualNamespace}/${virtualName}`;
}

/** What a complete tenant listing of one kind showed. */
export interface TenantListing {
  tenant: string;
  kind: string;
  /** Sources that should have a host copy (listed and in scope). */
  desired: ReadonlySet<string>;
  /** Every source listed, out-of-scope ones included (to word the reason). */
  listed: ReadonlySet<string>;
}

/**
 * The host objects to delete: managed by tenantplane for exactly this tenant and kind (read from
 * their own metadata, whatever the LIST returned), whose source is not desired any more. Objects
 * without complete reverse-mapping metadata, or without a uid to make a precondition of, are
 * never candidates.
 */
export function planGc(hostObjects: readonly KubeObject[], listing: TenantListing): GcCandidate[] {
  const candidates: GcCandidate[] = [];
  for (const object of hostObjects) {
    const ref = reverseLookup(object);
    if (!ref || ref.tenant !== listing.tenant || ref.kind !== listing.kind) continue;
    if (!object.metadata.uid) continue;
    const key = sourceKey(ref.virtualNamespace, ref.virtualName);
    if (listing.desired.has(key)) continue;
    const what = `tenant ${ref.kind} ${key}`;
    const reason = listing.listed.has(key)
      ? `${what} is excluded from syncing by the sync policy`
      : `${what} no longer exists`;
    candidates.push({ object, ref, reason });
  }
  return candidates;
}

/**
 * Deletes one candidate with a uid precondition, so a host object recreated under the same name
 * in the meantime is never deleted by mistake. An object already gone counts as deleted.
 */
export async function deleteCandidate(hostApi: ClusterApi, candidate: GcCandidate): Promise<void> {
  const { metadata } = candidate.object;
  try {
    await hostApi.delete(candidate.object, metadata.namespace, metadata.name, {
      uid: metadata.uid as string,
    });
  } catch (error) {
    if (!isClusterError(error, 'NotFound')) throw error;
  }
}

async function deleteOne(ctx: PassContext, rule: KindRule, candidate: GcCandidate): Promise<void> {
  if (!ctx.bounds.reserveWrite()) return;
  const tenantRef = { namespace: candidate.ref.virtualNamespace, name: candidate.ref.virtualName };
  const hostRef = {
    namespace: candidate.object.metadata.namespace ?? ctx.hostNamespace,
    name: candidate.object.metadata.name,
  };
  let failure: unknown;
  if (!ctx.dryRun) {
    try {
      await deleteCandidate(ctx.hostApi, candidate);
    } catch (error) {
      failure = error;
    }
  }
  decide(ctx, 'Delete', rule, { tenantRef, hostRef }, candidate.reason, failure);
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
  const candidates = planGc(hostObjects, listing);
  await runPool(
    candidates,
    ctx.bounds.budget.concurrency,
    (candidate) => deleteOne(ctx, rule, candidate),
    () => ctx.bounds.isStopped(),
  );
  return { ran: true, candidates: candidates.length };
}
