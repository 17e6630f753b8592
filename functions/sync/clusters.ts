/**
 * From the two kubeconfig secrets (or EKS clusters reached with the function's IAM role) to the
 * two cluster clients, failing before any write with a message that names the role and the
 * secret or cluster, never the kubeconfig's content nor a token.
 */
import type { EksClusterRef } from '../../lib/adapters/eks/token.js';
import { KubeconfigError, KubeconfigSourceError } from '../../lib/adapters/kubeconfig/errors.js';
import type {
  ClusterApi,
  ClusterRole,
  KubeconfigSource,
  KubeconfigText,
} from '../../lib/ports/index.js';
import type { SyncSettings } from './settings.js';

/** A kubeconfig could not be loaded or used. Names the role and the secret, never the content. */
export class KubeconfigLoadError extends Error {
  readonly role: ClusterRole;
  readonly secretId: string;
  constructor(role: ClusterRole, secretId: string, problem: string) {
    super(`${role} kubeconfig from secret ${secretId}: ${problem}`);
    this.name = 'KubeconfigLoadError';
    this.role = role;
    this.secretId = secretId;
  }
}

const ROLES: ClusterRole[] = ['tenant', 'host'];

/** What a source failure says, without the source's own "<role> kubeconfig <origin>: " prefix. */
function sourceProblem(error: unknown): string {
  if (error instanceof KubeconfigSourceError) {
    const prefix = `${error.role} kubeconfig ${error.origin}: `;
    return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

function secretIdOf(settings: SyncSettings, role: ClusterRole): string {
  return (role === 'tenant' ? settings.tenantSecretId : settings.hostSecretId) ?? '';
}

/** The EKS cluster `role` is reached at, when it is one. */
export function eksClusterOf(settings: SyncSettings, role: ClusterRole): EksClusterRef | undefined {
  return role === 'tenant' ? settings.tenantEks : settings.hostEks;
}

/** Connects to an EKS cluster with the function's role (`EksClusters.connect`). */
export type EksConnect = (role: ClusterRole, cluster: EksClusterRef) => Promise<ClusterApi>;

/**
 * Loads both kubeconfigs (or describes both EKS clusters) and builds their clients.
 * @throws KubeconfigLoadError for a missing or unusable secret or kubeconfig; EksClusterError
 *   for an EKS cluster that cannot be described.
 */
export async function connectClusters(
  settings: SyncSettings,
  source: KubeconfigSource,
  connect: (kubeconfig: KubeconfigText) => ClusterApi,
  connectEks?: EksConnect,
): Promise<{ tenantApi: ClusterApi; hostApi: ClusterApi }> {
  const apis: ClusterApi[] = [];
  for (const role of ROLES) {
    const eks = eksClusterOf(settings, role);
    if (eks) {
      if (!connectEks) throw new Error(`no way to reach the ${role} EKS cluster was given`);
      apis.push(await connectEks(role, eks));
      continue;
    }
    const secretId = secretIdOf(settings, role);
    let kubeconfig: KubeconfigText;
    try {
      kubeconfig = await source.load(role);
    } catch (error) {
      throw new KubeconfigLoadError(role, secretId, sourceProblem(error));
    }
    try {
      apis.push(connect(kubeconfig));
    } catch (error) {
      const problem =
        error instanceof KubeconfigError
          ? error.problem
          : error instanceof Error
            ? error.message
            : String(error);
      throw new KubeconfigLoadError(role, secretId, problem);
    }
  }
  return { tenantApi: apis[0]!, hostApi: apis[1]! };
}
