/**
 * The tenant cluster's identity: the uid of its `kube-system` namespace, which lives as long as
 * the cluster's etcd and changes when the cluster is rebuilt. Recorded on the first pass; a pass
 * that meets another identity writes nothing (see {@link TenantClusterChangedError}).
 */
import { errorMessage } from '../../common/index.js';
import { type ClusterApi, isClusterError, type KubeObject, NAMESPACE } from '../../ports/index.js';
import { ClusterUnreachableError, PassError, TenantClusterChangedError } from '../errors.js';
import { TenantClusterKeys } from '../names/metadata.js';

/**
 * Reads the tenant cluster's identity. This is the pass's first tenant request, so a transport
 * failure means the tenant cluster is unreachable.
 */
export async function readTenantClusterId(tenantApi: ClusterApi): Promise<string | undefined> {
  let namespace: KubeObject | undefined;
  try {
    namespace = await tenantApi.get(NAMESPACE, undefined, 'kube-system');
  } catch (error) {
    if (isClusterError(error, 'Transport'))
      throw new ClusterUnreachableError('tenant', { cause: error });
    // Not a full Kubernetes API (no namespaces served): nothing to identify it by.
    if (isClusterError(error, 'NotFound')) return undefined;
    const hint = isClusterError(error, 'Forbidden')
      ? ' (grant the tenant identity `get` on namespaces, resourceNames [kube-system]: deploy/rbac/tenant-cluster/tenant-cluster.yaml)'
      : '';
    throw new PassError(
      `could not read the tenant cluster's identity (namespace kube-system): ${errorMessage(error)}${hint}`,
      { cause: error },
    );
  }
  // A server without kube-system (not a full Kubernetes API) has no identity to check.
  return namespace?.metadata.uid;
}

/**
 * The identity to record for this pass. Throws when it differs from the recorded one and the
 * operator has not accepted exactly this new identity on the TenantCluster.
 */
export function checkTenantClusterId(
  tenant: string,
  tenantCluster: KubeObject,
  recorded: string | undefined,
  observed: string | undefined,
): string | undefined {
  if (observed === undefined) return recorded;
  if (recorded === undefined || recorded === observed) return observed;
  const accepted = tenantCluster.metadata.annotations?.[TenantClusterKeys.AcceptTenantClusterId];
  if (accepted === observed) return observed;
  throw new TenantClusterChangedError(tenant, recorded, observed);
}
