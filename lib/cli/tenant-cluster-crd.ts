/**
 * The CLI's side of lib/adapters/kube/tenant-cluster-crd.ts: a pass that failed on a host without
 * the TenantCluster CRD is reported as the missing CRD, as a command error (exit status, one line).
 */
import {
  missingCrdError as adapterMissingCrdError,
  TENANT_CLUSTER_CRD_FILE,
} from '../adapters/kube/tenant-cluster-crd.js';
import type { ClusterApi } from '../ports/index.js';
import { CommandError } from './errors.js';

export { TENANT_CLUSTER_CRD_FILE };

/**
 * The error to report instead of `error` when the host does not serve TenantClusters at all;
 * `undefined` when it does, when `error` is not a "not found", or when discovery cannot tell.
 */
export async function missingCrdError(
  hostApi: ClusterApi,
  error: unknown,
): Promise<CommandError | undefined> {
  const missing = await adapterMissingCrdError(hostApi, error);
  return missing && new CommandError(missing.message, { cause: error });
}
