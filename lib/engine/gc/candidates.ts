/**
 * The GC plan: which host objects lost their tenant source. Pure: read from the copies' own
 * reverse-mapping metadata and a complete tenant listing; deleting them is `gc.ts`.
 */
import type { KubeObject } from '../../ports/index.js';
import { sourceKey } from '../names/provenance.js';
import { ourCopySource, type TenantSource } from '../names/reverse-mapping.js';

/** A host object to delete and why. */
export interface GcCandidate {
  object: KubeObject;
  ref: TenantSource;
  reason: string;
  /** The source is gone from a complete listing (not excluded): the mass-delete guard counts it. */
  vanished: boolean;
  /**
   * The source was listed being deleted in the tenant (a Pod scaled away): a deletion the tenant
   * asked for and the listing shows, not one inferred from an absence, so the guard lets it go.
   */
  ending?: true;
  /**
   * The grace period the copy is deleted with: the tenant's own, for a source being deleted with
   * one (a tenant Pod's containers get on the host the time they got in the tenant).
   */
  gracePeriodSeconds?: number;
}

/** What a complete tenant listing of one kind showed. */
export interface TenantListing {
  tenant: string;
  kind: string;
  /** Sources that should have a host copy (listed and in scope). */
  desired: ReadonlySet<string>;
  /** Every source listed, out-of-scope ones included (to word the reason). */
  listed: ReadonlySet<string>;
  /**
   * Sources listed while being deleted in the tenant (a bound Pod waits for its end), with the
   * grace period they were deleted with, when they have one.
   */
  ending?: ReadonlyMap<string, number | undefined>;
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
    const ref = ourCopySource(object, listing);
    if (!ref) continue;
    if (!object.metadata.uid) continue;
    // Already being deleted (a host finalizer holds it): deleting again would only repeat itself.
    if (object.metadata.deletionTimestamp) continue;
    const key = sourceKey(ref.virtualNamespace, ref.virtualName);
    if (listing.desired.has(key)) continue;
    const what = `tenant ${ref.kind} ${key}`;
    if (listing.ending?.has(key)) {
      const grace = listing.ending.get(key);
      const reason =
        grace === undefined
          ? `${what} is being deleted in the tenant`
          : `${what} is being deleted in the tenant with a grace period of ${grace} s; its host copy gets the same`;
      candidates.push({
        object,
        ref,
        reason,
        vanished: true,
        ending: true,
        ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
      });
      continue;
    }
    const vanished = !listing.listed.has(key);
    const reason = vanished
      ? `${what} no longer exists`
      : `${what} is excluded from syncing by the sync policy`;
    candidates.push({ object, ref, reason, vanished });
  }
  return candidates;
}
