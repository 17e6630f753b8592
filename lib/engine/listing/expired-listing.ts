/**
 * Expired continue tokens: a LIST paged with `limit` + `continue` whose token the server no longer
 * honours (410 Gone, reason `Expired`, after etcd compaction) cannot be resumed. The listing starts
 * again from its first page, once per kind and pass; a second expiry ends the kind's listing for
 * this pass (incomplete, no GC), and the next pass lists it afresh.
 */
import { ClusterError, isClusterError, type KindRef } from '../../ports/index.js';
import { resourceKey } from '../names/resource-key.js';

/**
 * Whether a failed page should restart the listing of `kind`: true for the first expired token of
 * the kind (recorded in `restarted` by its resource key).
 * @throws ClusterError (Expired) for the second expiry of the kind, saying it gave up.
 */
export function restartExpired(restarted: Set<string>, kind: KindRef, error: unknown): boolean {
  if (!isClusterError(error, 'Expired')) return false;
  const key = resourceKey(kind);
  if (!restarted.has(key)) {
    restarted.add(key);
    return true;
  }
  throw new ClusterError(
    'Expired',
    `the continue token expired again (${error.message}) after the listing restarted once this pass; the next pass lists the kind afresh`,
    { status: error.status ?? 410, cause: error },
  );
}
