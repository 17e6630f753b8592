/**
 * Scheduling the policy enforces on every host Pod (`spec.workloads.nodeSelector` and
 * `tolerations`): a host operator keeps a tenant's Pods on the nodes set aside for it, whatever
 * the tenant asks. The tenant's own selector and tolerations are kept beside the policy's.
 *
 * On a running Pod, tolerations may only be added (`pod-update.ts` adds the policy's new ones)
 * and the node selector cannot change: a policy whose selector changed makes the Pod's update the
 * Skip that says a running Pod cannot change `spec.nodeSelector` (`pod-immutable.ts`).
 */
import { cloneJson, isRecord } from '../../../../common/index.js';
import type { Toleration, WorkloadPolicy } from '../../../policy/workloads.js';

type Json = Record<string, unknown>;

/** A toleration with the API's defaults spelled out, so two ways of writing one compare equal. */
function normalised(t: Json): string {
  return JSON.stringify([
    t.key ?? '',
    t.operator ?? 'Equal',
    t.value ?? '',
    t.effect ?? '',
    t.tolerationSeconds ?? null,
  ]);
}

/**
 * The tolerations of a host Pod: the tenant's, then the policy's that the tenant does not have
 * already (with the API's defaults: `operator` Equal, empty `value` and `effect`).
 */
export function withPolicyTolerations(tenant: unknown, policy: readonly Toleration[]): Json[] {
  const list = Array.isArray(tenant) ? tenant.filter(isRecord) : [];
  const seen = new Set(list.map(normalised));
  for (const toleration of policy) {
    const key = normalised({ ...toleration });
    if (seen.has(key)) continue;
    seen.add(key);
    list.push(cloneJson({ ...toleration }));
  }
  return list;
}

/**
 * Merges the policy's node selector and tolerations into a host Pod spec (in place): the
 * policy's selector value wins over the tenant's for the same key; the policy's tolerations are
 * added, not repeated. Without either in the policy the spec is left as it is. Idempotent.
 */
export function enforceScheduling(spec: Json, policy: WorkloadPolicy | undefined): void {
  const selector = policy?.nodeSelector;
  if (selector && Object.keys(selector).length > 0) {
    const tenant = isRecord(spec.nodeSelector) ? spec.nodeSelector : {};
    spec.nodeSelector = { ...tenant, ...selector };
  }
  const tolerations = policy?.tolerations;
  if (tolerations && tolerations.length > 0) {
    spec.tolerations = withPolicyTolerations(spec.tolerations, tolerations);
  }
}
