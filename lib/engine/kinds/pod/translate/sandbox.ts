/**
 * What a sandbox needs of every host Pod, whatever the tenant asks: the runtime class the policy
 * names (`spec.workloads.runtimeClassName`, a sandbox such as gVisor or Kata), the host's own
 * scheduler, and no toleration of every taint, which would let a Pod onto nodes set aside for
 * the host or for other tenants. The last two are allowed by name (`allowSchedulerName`,
 * `allowTolerateAll`); the runtime class is forced.
 *
 * Forced, never changed into something else: a Pod without a runtime class gets the policy's; a
 * Pod naming another is refused (a Skip naming both), since running it under a class it did not
 * ask for could break it silently. A running Pod's runtime class cannot change, so a policy that
 * names one later reaches new Pods; a running Pod without it gets the Skip that says a running Pod
 * cannot change `spec.runtimeClassName` (`immutable.ts`), with no write, pass after pass, until
 * the tenant recreates it.
 */
import { isRecord } from '../../../../common/index.js';
import { isolationOf, type WorkloadPolicy } from '../../../policy/workloads.js';

/** The scheduler a Pod gets by default, in the tenant as on the host. */
export const DEFAULT_SCHEDULER = 'default-scheduler';

/** Whether a toleration tolerates every taint (of its effect): `Exists` without a key. */
export function toleratesAll(toleration: unknown): boolean {
  if (!isRecord(toleration) || toleration.operator !== 'Exists') return false;
  return toleration.key === undefined || toleration.key === null || toleration.key === '';
}

function runtimeClassRefusal(spec: Record<string, unknown>, forced: string | undefined) {
  const asked = spec.runtimeClassName;
  if (forced === undefined || typeof asked !== 'string' || asked === '' || asked === forced) {
    return undefined;
  }
  return `the Pod asks for runtime class "${asked}" (spec.runtimeClassName), and the policy runs every Pod with "${forced}" (spec.workloads.runtimeClassName); leave spec.runtimeClassName out or set it to "${forced}"`;
}

function schedulerRefusal(spec: Record<string, unknown>, allowed: boolean) {
  const asked = spec.schedulerName;
  if (allowed || typeof asked !== 'string' || asked === '' || asked === DEFAULT_SCHEDULER) {
    return undefined;
  }
  return `the Pod names its own scheduler (spec.schedulerName: "${asked}"), which the policy does not allow (spec.workloads.allowSchedulerName); the host's default scheduler places it otherwise`;
}

function tolerateAllRefusal(spec: Record<string, unknown>, allowed: boolean) {
  if (allowed || !Array.isArray(spec.tolerations)) return undefined;
  const at = spec.tolerations.findIndex(toleratesAll);
  if (at < 0) return undefined;
  return `the Pod tolerates every taint (spec.tolerations[${at}]: operator Exists without a key), which would let it onto nodes set aside for others, and the policy does not allow it (spec.workloads.allowTolerateAll); name the taint's key`;
}

/**
 * The Skip reason of a Pod asking for a runtime class other than the policy's, its own scheduler
 * or a toleration of every taint, when the policy does not allow it; `undefined` otherwise.
 */
export function sandboxRefusal(
  spec: unknown,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (!isRecord(spec)) return undefined;
  const isolation = isolationOf(policy);
  return (
    runtimeClassRefusal(spec, isolation.runtimeClassName) ??
    schedulerRefusal(spec, isolation.allowSchedulerName) ??
    tolerateAllRefusal(spec, isolation.allowTolerateAll)
  );
}

/** Sets the policy's runtime class on a host Pod spec (in place), when the policy names one. */
export function enforceRuntimeClass(
  spec: Record<string, unknown>,
  policy: WorkloadPolicy | undefined,
): void {
  const forced = isolationOf(policy).runtimeClassName;
  if (forced !== undefined) spec.runtimeClassName = forced;
}
