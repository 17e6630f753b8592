/**
 * A host whose TenantCluster CRD is older than the engine prunes the status fields its schema does
 * not know (`syncedKinds[].sensitive`, `hostNamespaces`, `retryOverflow`, ...), silently: the
 * write succeeds, and the field is simply not there. The status subresource answers a patch with
 * the object as stored, so comparing what was sent with what came back tells.
 */
import { isRecord } from '../../common/index.js';
import { type ClusterApi, type KubeObject, TENANT_CLUSTER } from '../../ports/index.js';
import { statusPatch, type TenantClusterStatusPatch } from './status.js';

/** Where the TenantCluster CRD is, to re-apply. */
export const TENANT_CLUSTER_CRD_FILE = 'deploy/crds/tenantclusters.tenantplane.io.yaml';

/** One status write: the merge patch sent and the TenantCluster the host stored. */
export interface StatusWrite {
  sent: TenantClusterStatusPatch;
  stored: KubeObject;
}

/**
 * Writes {@link statusPatch} of `parts` like `patchTenantClusterStatus`, keeping what the host
 * answered. `undefined` when nothing was to write (no request).
 */
export async function writeTenantClusterStatus(
  hostApi: Pick<ClusterApi, 'patchStatus'>,
  tenant: string,
  ...parts: ReadonlyArray<TenantClusterStatusPatch | undefined>
): Promise<StatusWrite | undefined> {
  const sent = statusPatch(...parts);
  if (!sent) return undefined;
  const stored = await hostApi.patchStatus(TENANT_CLUSTER, undefined, tenant, sent);
  return { sent, stored };
}

function collectPruned(sent: unknown, stored: unknown, path: string, out: Set<string>): void {
  // `null` removes a field (JSON merge patch): nothing to find afterwards.
  if (sent === null || sent === undefined) return;
  if (stored === undefined || stored === null) {
    out.add(path);
    return;
  }
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored)) return;
    sent.forEach((item, index) => {
      collectPruned(item, stored[index], `${path}[]`, out);
    });
    return;
  }
  if (!isRecord(sent) || !isRecord(stored)) return;
  for (const [key, value] of Object.entries(sent))
    collectPruned(value, stored[key], `${path}.${key}`, out);
}

/**
 * The fields of `sent` missing from the stored status, as `status.syncedKinds[].sensitive` (list
 * items folded into `[]`), sorted; the outermost missing field only. Only absence counts: a
 * pruning schema drops fields, it does not change values.
 */
export function prunedStatusFields(write: StatusWrite): string[] {
  const out = new Set<string>();
  collectPruned(write.sent, write.stored.status, 'status', out);
  return [...out].sort();
}

/** Whether a pruned field is one that says which copies exist (so a copy could outlive it). */
export function coversCopies(field: string): boolean {
  return /^status\.(syncedKinds|hostNamespaces|fromHostKinds)(\W|$)/.test(field);
}

/** What an operator reads: the CRD is out of date, what it dropped, and how to fix it. */
export function outdatedCrdMessage(pruned: readonly string[]): string {
  return `the TenantCluster CRD on the host is out of date: it dropped ${pruned.join(', ')} from what the engine wrote; re-apply it (kubectl apply -f ${TENANT_CLUSTER_CRD_FILE})`;
}
