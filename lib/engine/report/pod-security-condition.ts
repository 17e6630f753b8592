/**
 * The `HostPodSecurity` condition: whether the host's own Pod Security admission, the second wall
 * behind the engine's check of every host Pod, enforces at least the policy's level on the host
 * namespace (`tenant/host-pod-security.ts` reads it). `False` is no failure of the pass: the
 * engine refuses every Pod below the level either way; it tells the host operator that one wall is
 * missing and how to add it.
 */
import { KubernetesKeys } from '../names/metadata.js';
import { enforcesAtLeast, type HostPodSecurity } from '../tenant/host-pod-security.js';
import {
  type ConditionInput,
  ConditionReason,
  ConditionType,
  recordedConditions,
} from './conditions.js';

const LABEL = KubernetesKeys.PodSecurityEnforce;

/**
 * The `HostPodSecurity` condition for what a pass found (none when it could not tell, or when no
 * wall is asked for and none was ever reported: a tenant without Pods gets no such condition).
 */
export function hostPodSecurityConditions(
  found: HostPodSecurity | undefined,
  recordedStatus: unknown,
  generation: number | undefined,
): ConditionInput[] {
  if (!found) return [];
  const common = {
    type: ConditionType.HostPodSecurity,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  if (!found.needed) {
    const recorded = recordedConditions(recordedStatus).some((c) => c.type === common.type);
    if (!recorded) return [];
    return [{ ...common, status: 'True', reason: ConditionReason.NotNeeded, message: found.why }];
  }
  const { level, hostNamespace: ns } = found;
  if ('unreadable' in found) {
    const message = `could not read the host namespace ${ns} for its ${LABEL} label: ${found.unreadable}`;
    return [
      { ...common, status: 'Unknown', reason: ConditionReason.HostNamespaceUnreadable, message },
    ];
  }
  if (enforcesAtLeast(found.enforced, level)) {
    const message = `the host namespace ${ns} enforces Pod Security "${found.enforced}" (${LABEL}), at least the policy's level "${level}"`;
    return [{ ...common, status: 'True', reason: ConditionReason.Enforced, message }];
  }
  const has = found.enforced === undefined ? 'none' : `"${found.enforced}"`;
  const message = `the host namespace ${ns} has no ${LABEL} label at least as strict as the policy's level "${level}" (it has ${has}): the engine refuses every host Pod below the level itself, and the host's own admission is the second wall; label it: kubectl label namespace ${ns} ${LABEL}=${level} --overwrite (deploy/rbac/host-cluster/host-cluster.yaml does)`;
  return [{ ...common, status: 'False', reason: ConditionReason.NotEnforced, message }];
}
