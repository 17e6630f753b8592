/**
 * The host priority class of a host Pod. The hardening (`pod-hardening.ts`) clears the tenant's
 * priority class, priority, preemption policy and overhead: they would spend host priority the
 * tenant was never given. A policy that names host classes (`spec.workloads.priorityClasses`,
 * tenant class -> host class, and `priorityClassName` for every other Pod) gives the host Pod
 * that class back, and only the class: the host's Priority admission fills in the priority and
 * preemption policy from it (a Pod that sets a priority not matching its class is refused).
 */
import { isRecord } from '../../../../common/index.js';
import type { WorkloadPolicy } from '../../../policy/workloads.js';
import type { KindTranslator } from '../../frame/translator.js';
import type { PodFacts } from '../facts.js';

/**
 * The host class for a tenant Pod of class `tenantClass` (empty or absent: none), or `undefined`
 * when the policy names none for it.
 */
export function hostPriorityClass(
  tenantClass: unknown,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  const mapped =
    typeof tenantClass === 'string' && tenantClass !== ''
      ? policy?.priorityClasses?.[tenantClass]
      : undefined;
  return mapped ?? policy?.priorityClassName;
}

/** `translator` (the Pod's) with the policy's host priority class set on the host Pod. */
export function withHostPriorityClass(
  translator: KindTranslator<PodFacts>,
): KindTranslator<PodFacts> {
  return {
    ...translator,
    toHost(object, target) {
      const host = translator.toHost(object, target);
      const source = target.source.spec;
      const hostClass = hostPriorityClass(
        isRecord(source) ? source.priorityClassName : undefined,
        target.workloads,
      );
      if (hostClass !== undefined && isRecord(host.spec)) host.spec.priorityClassName = hostClass;
      return host;
    },
  };
}
