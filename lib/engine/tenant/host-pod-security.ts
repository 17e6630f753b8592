/**
 * The second wall: the host's own Pod Security admission on the tenant's host namespace (its
 * `pod-security.kubernetes.io/enforce` label). The engine checks every host Pod itself at the
 * policy's level (`kinds/pod/translate/pod-security.ts`); the host's admission is what still
 * holds if that check had a gap, or if something other than the engine writes Pods there. A full
 * pass that syncs Pods reads the label (one GET of the namespace, by name, with the status report;
 * a resumed pass does not) so the TenantCluster can say when the wall is missing or lower than the
 * policy's level (`report/pod-security-condition.ts`).
 */
import { errorMessage } from '../../common/index.js';
import { type ClusterApi, isClusterError, NAMESPACE, POD } from '../../ports/index.js';
import { KubernetesKeys } from '../names/metadata.js';
import { resourceKey } from '../names/resource-key.js';
import { PodSecurityLevel } from '../policy/isolation.js';
import type { SyncPolicy } from '../policy/policy.js';
import { isolationOf } from '../policy/workloads.js';

/** What a pass found of the host's Pod Security admission on its host namespace. */
export type HostPodSecurity =
  /** The policy syncs no Pods, or at the privileged level: no wall is asked for. */
  | { needed: false; why: string }
  /** The namespace's enforce label (`undefined`: none), against the policy's level. */
  | { needed: true; level: PodSecurityLevel; hostNamespace: string; enforced: string | undefined }
  /** The namespace could not be read: why, and what to grant when it was a refusal. */
  | { needed: true; level: PodSecurityLevel; hostNamespace: string; unreadable: string };

const STRICTNESS: readonly string[] = [
  PodSecurityLevel.Privileged,
  PodSecurityLevel.Baseline,
  PodSecurityLevel.Restricted,
];

/**
 * Whether an enforce label value is at least as strict as `level`. A value that is no level
 * (absent, or a typo) is not: what the host's admission makes of it is not the policy's level.
 */
export function enforcesAtLeast(enforced: string | undefined, level: PodSecurityLevel): boolean {
  const found = enforced === undefined ? -1 : STRICTNESS.indexOf(enforced);
  return found >= 0 && found >= STRICTNESS.indexOf(level);
}

/**
 * Reads the enforce label of the policy's host namespace, when the policy syncs Pods at a level
 * that checks anything. A refused read (no `get` on that namespace) is reported with the grant it
 * needs; any other failure (a blip) is `undefined`, so the recorded condition stands until a pass
 * reads it.
 */
export async function readHostPodSecurity(
  hostApi: ClusterApi,
  policy: SyncPolicy,
): Promise<HostPodSecurity | undefined> {
  const { hostNamespace } = policy;
  const level = isolationOf(policy.workloads).podSecurity;
  const pods = resourceKey(POD);
  if (!policy.toHost.some((rule) => resourceKey(rule) === pods)) {
    return { needed: false, why: 'the policy syncs no Pods' };
  }
  if (level === PodSecurityLevel.Privileged) {
    return { needed: false, why: 'the policy’s Pod Security level is privileged' };
  }
  try {
    const namespace = await hostApi.get(NAMESPACE, undefined, hostNamespace);
    const enforced = namespace?.metadata.labels?.[KubernetesKeys.PodSecurityEnforce];
    return { needed: true, level, hostNamespace, enforced };
  } catch (error) {
    if (!isClusterError(error, 'Forbidden')) return undefined;
    const unreadable = `${errorMessage(error)} (grant the host identity \`get\` on namespaces, resourceNames [${hostNamespace}]: deploy/rbac/host-cluster/host-cluster.yaml)`;
    return { needed: true, level, hostNamespace, unreadable };
  }
}
