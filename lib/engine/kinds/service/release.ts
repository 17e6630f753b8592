/**
 * The delete of a realignment: the tenant Service goes so that it can be recreated with its host
 * copy's address, and the tenant's garbage collector deletes nothing because of it.
 *
 * The delete asks for `propagationPolicy: Orphan`: before the Service goes, the collector removes
 * its uid from the `ownerReferences` of whatever still names it (an object of a kind the engine
 * may not list, one made after the engine looked, the slices the tenant's controller then remakes)
 * instead of deleting those objects. The Service waits for that (the `orphan` finalizer), so the
 * engine waits too, a bounded while, watching the name with a LIST (its tenant identity has no
 * `get`). A collector that does not answer in time (the tenant's controller manager down) must
 * not leave the Service half deleted: a second delete asks for `Background`, which lets it go at
 * once (the apiserver drops the `orphan` finalizer); the Decision says so.
 */
import { type ClusterApi, isClusterError, type KubeObject, SERVICE } from '../../../ports/index.js';
import { attempt } from '../../errors.js';

/** How long the engine waits for the collector, and how often it looks. */
export interface ReleaseTiming {
  waitMs: number;
  pollMs: number;
}

/** A collector answers in well under a second; ten leave room for a busy one. */
export const RELEASE_TIMING: ReleaseTiming = { waitMs: 10_000, pollMs: 200 };

/**
 * How the delete went: the name free (orphaned, or let go at once), or a failure: of the delete
 * (`waiting: false`, nothing happened: the Service changed or went since it was read), or of the
 * second one (`waiting: true`, the Service still waits for the collector).
 */
export type Released =
  | { gone: 'orphaned' | 'forced' }
  | { gone: false; waiting: boolean; error: unknown };

const pause = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/**
 * Deletes `service` (uid and resourceVersion preconditions) orphaning its dependents, and waits
 * until its name is free; `stopped` ends the wait early (the pass is stopping).
 */
export async function releaseService(
  api: ClusterApi,
  service: KubeObject,
  stopped: () => boolean,
  timing: ReleaseTiming = RELEASE_TIMING,
): Promise<Released> {
  const { namespace = '', name, uid = '', resourceVersion } = service.metadata;
  const preconditions = { uid, ...(resourceVersion ? { resourceVersion } : {}) };
  const deleted = await attempt(() =>
    api.delete(SERVICE, namespace, name, preconditions, { propagationPolicy: 'Orphan' }),
  );
  if (!deleted.ok) return { gone: false, waiting: false, error: deleted.error };
  const fieldSelector = `metadata.name=${name}`;
  const deadline = Date.now() + timing.waitMs;
  for (;;) {
    const seen = await attempt(() => api.list(SERVICE, { namespace, fieldSelector, limit: 1 }));
    // Gone, or never marked deleted: a delete that was only answered (a dry run) waits for nothing.
    const waiting = (s: KubeObject) => s.metadata.uid === uid && s.metadata.deletionTimestamp;
    if (seen.ok && !seen.value.items.some(waiting)) return { gone: 'orphaned' };
    if (Date.now() >= deadline || stopped()) break;
    await pause(timing.pollMs);
  }
  // Only the uid: the collector's wait changed the resourceVersion (its finalizer).
  const forced = await attempt(() =>
    api.delete(SERVICE, namespace, name, { uid }, { propagationPolicy: 'Background' }),
  );
  if (forced.ok) return { gone: 'forced' };
  // Gone meanwhile: the collector let it go after all.
  if (isClusterError(forced.error, 'NotFound')) return { gone: 'orphaned' };
  return { gone: false, waiting: true, error: forced.error };
}
