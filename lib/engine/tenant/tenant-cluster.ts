/** Reading the tenant's TenantCluster, the pass's policy and the home of its status. */
import { errorMessage } from '../../common/index.js';
import {
  type ClusterApi,
  isClusterError,
  type KubeObject,
  type PassResult,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { ClusterUnreachableError, PassError, TenantClusterNotFoundError } from '../errors.js';
import { TenantClusterKeys } from '../names/metadata.js';

/**
 * Reads the TenantCluster named `tenant` from the host.
 * @throws TenantClusterNotFoundError when it does not exist, ClusterUnreachableError when the host
 * does not answer, PassError for any other failure; each with `cause`.
 */
export async function readTenantCluster(hostApi: ClusterApi, tenant: string): Promise<KubeObject> {
  let object: KubeObject | undefined;
  try {
    object = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
  } catch (error) {
    if (isClusterError(error, 'Transport'))
      throw new ClusterUnreachableError('host', { cause: error });
    if (isClusterError(error, 'NotFound'))
      throw new TenantClusterNotFoundError(tenant, { cause: error });
    throw new PassError(`could not read TenantCluster "${tenant}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!object) throw new TenantClusterNotFoundError(tenant);
  return object;
}

/**
 * What a pass result records of the TenantCluster it read: its uid (for the sinks) and its
 * `metadata.generation` (reported as `status.observedGeneration`).
 */
export function tenantClusterFacts(
  object: KubeObject,
): Pick<PassResult, 'tenantClusterUid' | 'tenantClusterGeneration'> {
  const { uid, generation } = object.metadata;
  return {
    ...(uid ? { tenantClusterUid: uid } : {}),
    ...(typeof generation === 'number' ? { tenantClusterGeneration: generation } : {}),
  };
}

/** The confirmations in the TenantCluster annotation: `<Kind>:<token>` entries, comma-separated. */
export function confirmedTokens(annotations: Record<string, string> | undefined): Set<string> {
  const value = annotations?.[TenantClusterKeys.ConfirmDeletes] ?? '';
  return new Set(
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  );
}
