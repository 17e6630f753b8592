/**
 * A host cluster without the TenantCluster CRD answers "not found" for every TenantCluster, which
 * a pass reports as a missing TenantCluster: the operator then creates one and is refused again.
 * When a pass fails that way, one discovery request tells the two apart. Shared by the CLI and
 * the sync function, so both say the same thing.
 */
import { type ClusterApi, isClusterError, TENANT_CLUSTER } from '../../ports/index.js';

/** The CRD manifest, as shipped in the repository (README, "Install"). */
export const TENANT_CLUSTER_CRD_FILE = 'deploy/crds/tenantclusters.tenantplane.io.yaml';

/** The host serves no TenantCluster at all: the CRD is not installed. */
export class TenantClusterCrdMissingError extends Error {
  constructor(options?: { cause?: unknown }) {
    super(
      `the host cluster does not serve ${TENANT_CLUSTER.kind} (${TENANT_CLUSTER.apiVersion}): the CRD tenantclusters.tenantplane.io is not installed; install it on the host with "kubectl apply -f ${TENANT_CLUSTER_CRD_FILE}" (from the tenantplane repository), then create the TenantCluster`,
      options,
    );
    this.name = 'TenantClusterCrdMissingError';
  }
}

/** True when `error`, or an error it was caused by, says something was not found. */
function saysNotFound(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    // By name: importing the engine here would load it for every command that opens a cluster.
    if (e.name === 'TenantClusterNotFoundError' || isClusterError(e, 'NotFound')) return true;
    e = e.cause;
  }
  return false;
}

/**
 * The error to report instead of `error` when the host does not serve TenantClusters at all;
 * `undefined` when it does, when `error` is not a "not found", or when discovery cannot tell
 * (the original error then stands).
 */
export async function missingCrdError(
  hostApi: ClusterApi,
  error: unknown,
): Promise<TenantClusterCrdMissingError | undefined> {
  if (!saysNotFound(error) || hostApi.namespaced === undefined) return undefined;
  try {
    await hostApi.namespaced(TENANT_CLUSTER);
    return undefined;
  } catch (discovery) {
    if (!isClusterError(discovery, 'NotFound')) return undefined;
    return new TenantClusterCrdMissingError({ cause: error });
  }
}
