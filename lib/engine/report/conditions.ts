/**
 * Status conditions of a TenantCluster (the `metav1.Condition` shape), so `kubectl wait
 * --for=condition=Ready` and every tool that reads conditions understand a tenant at a glance.
 *
 * Two conditions, always set together: `Ready` (the last pass completed without errors) and its
 * abnormal-true twin `Degraded` (the last pass was incomplete, had object errors, or failed at
 * pass level), both with the same CamelCase reason; beside them, for a tenant that syncs Pods,
 * `HostPodSecurity` (`pod-security-condition.ts`). `lastTransitionTime` changes only when a
 * condition's status flips, and the conditions are written only when something in them changed,
 * so a steady state stays write-free.
 */
import type { PassResult } from '../../ports/index.js';
import { formatObjectError } from '../context/object-errors.js';
import {
  type Condition,
  type ConditionStatus,
  readTenantClusterStatus,
  type TenantClusterStatusPatch,
} from '../tenant/status.js';

// The shape of a condition is the status's (`tenant/status.ts`); what the conditions say is here.
export type { Condition, ConditionStatus };

/**
 * The condition types tenantplane maintains. `HostPodSecurity` says whether the host's own Pod
 * Security admission enforces the policy's level on the host namespace
 * (`pod-security-condition.ts`), `HostFeatures` whether the host serves the APIs an older release
 * may lack (`host-features-condition.ts`); they are set apart from the other two.
 */
export const ConditionType = {
  Ready: 'Ready',
  Degraded: 'Degraded',
  HostPodSecurity: 'HostPodSecurity',
  HostFeatures: 'HostFeatures',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

/**
 * Why the conditions are as they are (the `reason` of both conditions). A pass-level failure of
 * another kind is named after its error (`TenantClusterChangedError` -> `TenantClusterChanged`).
 */
export const ConditionReason = {
  /** The last pass completed and every object converged. */
  Converged: 'Converged',
  /** A bound (deadline, write budget, 429) or a failed listing left work for the next pass. */
  PassIncomplete: 'PassIncomplete',
  /** The last pass completed, but some objects failed. */
  ObjectErrors: 'ObjectErrors',
  /** The pass failed before any write: the tenant cluster did not answer. */
  TenantClusterUnreachable: 'TenantClusterUnreachable',
  /** The pass failed before any write: the TenantCluster spec is not a valid policy. */
  InvalidPolicy: 'InvalidPolicy',
  /** The pass failed before any write, for another reason (see the message). */
  PassFailed: 'PassFailed',
  /** `HostPodSecurity`: the host namespace enforces at least the policy's level. */
  Enforced: 'Enforced',
  /** `HostPodSecurity`: its enforce label is missing or lower than the policy's level. */
  NotEnforced: 'NotEnforced',
  /** `HostPodSecurity`: the host namespace could not be read. */
  HostNamespaceUnreadable: 'HostNamespaceUnreadable',
  /** `HostPodSecurity`, `HostFeatures`: nothing to check (no Pods synced, or the privileged level; no kind that needs a newer API). */
  NotNeeded: 'NotNeeded',
  /** `HostFeatures`: the host serves every API the policy's kinds use that older releases lack. */
  AllServed: 'AllServed',
  /** `HostFeatures`: the host lacks some of them; the engine does without (see the message). */
  FeaturesMissing: 'FeaturesMissing',
} as const;
export type ConditionReason = (typeof ConditionReason)[keyof typeof ConditionReason];

/** A condition as a pass asserts it, before it is merged with what is recorded. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** A `lastTransitionTime`: RFC 3339 in whole seconds, like `metav1.Time`. */
export function conditionTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Longest condition message written (the CRD allows 32768; status stays small). */
const MAX_MESSAGE = 1024;

function clip(message: string): string {
  return message.length <= MAX_MESSAGE ? message : `${message.slice(0, MAX_MESSAGE - 3)}...`;
}

/** `Ready` and `Degraded` for one outcome: healthy, or in trouble for `reason`. */
export function outcomeConditions(
  healthy: boolean,
  reason: string,
  message: string,
  generation: number | undefined,
): ConditionInput[] {
  const common = {
    reason,
    message: clip(message),
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
  const ready: ConditionStatus = healthy ? 'True' : 'False';
  const degraded: ConditionStatus = healthy ? 'False' : 'True';
  return [
    { type: ConditionType.Ready, status: ready, ...common },
    { type: ConditionType.Degraded, status: degraded, ...common },
  ];
}

/** The conditions a finished (not dry-run, not paused) pass asserts. */
export function passConditions(result: PassResult): ConditionInput[] {
  const generation = result.tenantClusterGeneration;
  const errors = result.errors.length;
  const first = result.errors[0];
  const errorText = first
    ? `${errors} object error${errors === 1 ? '' : 's'}, first: ${formatObjectError(first)}`
    : '';
  if (!result.complete) {
    const why = result.incompleteReason ?? 'work was left for the next pass';
    const message = errorText ? `${why}; ${errorText}` : why;
    return outcomeConditions(false, ConditionReason.PassIncomplete, message, generation);
  }
  if (first) return outcomeConditions(false, ConditionReason.ObjectErrors, errorText, generation);
  const message = 'the last pass completed and every object converged';
  return outcomeConditions(true, ConditionReason.Converged, message, generation);
}

/** The well-formed conditions of a recorded `status` (anything else is ignored). */
export function recordedConditions(status: unknown): Condition[] {
  return readTenantClusterStatus({ status }).conditions;
}

/** Whether `recorded` already says what `next` says (lastTransitionTime aside). */
function sameCondition(recorded: Condition, next: ConditionInput): boolean {
  return (
    recorded.status === next.status &&
    recorded.reason === next.reason &&
    recorded.message === next.message &&
    recorded.observedGeneration === next.observedGeneration &&
    typeof recorded.lastTransitionTime === 'string' &&
    recorded.lastTransitionTime !== ''
  );
}

/**
 * Merges the asserted conditions into the recorded ones: a condition whose status is unchanged
 * keeps its `lastTransitionTime`, one that flips (or is new) gets `now`; conditions of other
 * types are kept as recorded, in place. `changed` is false when nothing would differ.
 */
export function mergeConditions(
  recorded: readonly Condition[],
  next: readonly ConditionInput[],
  now: string,
): { conditions: Condition[]; changed: boolean } {
  let changed = false;
  const merged = recorded.map((c) => ({ ...c }));
  for (const wanted of next) {
    const index = merged.findIndex((c) => c.type === wanted.type);
    const old = index < 0 ? undefined : merged[index];
    if (old && sameCondition(old, wanted)) continue;
    changed = true;
    const keep = old && old.status === wanted.status && old.lastTransitionTime;
    const condition: Condition = { ...wanted, lastTransitionTime: keep || now };
    if (index < 0) merged.push(condition);
    else merged[index] = condition;
  }
  return { conditions: merged, changed };
}

/**
 * The `status` fields `conditions` and `observedGeneration` to write, or `undefined` when the
 * recorded status already says the same (so nothing needs writing on their account).
 * `generation` is the TenantCluster's `metadata.generation`; `now` the time of the outcome.
 */
export function conditionsPatch(
  recordedStatus: unknown,
  next: readonly ConditionInput[],
  generation: number | undefined,
  now: string,
): Pick<TenantClusterStatusPatch, 'conditions' | 'observedGeneration'> | undefined {
  const recorded = readTenantClusterStatus({ status: recordedStatus });
  const merge = mergeConditions(recorded.conditions, next, now);
  const generationChanged = generation !== undefined && recorded.observedGeneration !== generation;
  if (!merge.changed && !generationChanged) return undefined;
  return {
    conditions: merge.conditions,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}
