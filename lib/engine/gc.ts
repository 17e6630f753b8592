/**
 * Garbage collection: which managed host objects lost their tenant source, and deleting them
 * safely (uid precondition, managed objects of this tenant and kind only).
 */
import { type ClusterApi, isClusterError, type KubeObject } from '../ports/index.js';
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

/** What the tenant listing of one kind showed. Only call GC with a complete listing. */
export interface TenantListing {
  tenant: string;
  kind: string;
  /** Sources that should have a host copy (listed and not excluded). */
  desired: ReadonlySet<string>;
  /** Every source listed, excluded ones included (to word the reason). */
  listed: ReadonlySet<string>;
}

/**
 * The host objects to delete: managed by tenantplane for exactly this tenant and kind (read from
 * their own metadata, whatever the LIST selector returned), whose source is not desired any more.
 * Objects without complete reverse-mapping metadata are never candidates.
 */
export function planGc(hostObjects: readonly KubeObject[], listing: TenantListing): GcCandidate[] {
  const candidates: GcCandidate[] = [];
  for (const object of hostObjects) {
    const ref = reverseLookup(object);
    if (!ref || ref.tenant !== listing.tenant || ref.kind !== listing.kind) continue;
    if (!object.metadata.uid) continue; // no uid, no precondition: never delete blind
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
