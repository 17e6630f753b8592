/**
 * The Pod Security Standards, checked by the engine itself on the host Pod it would write, at the
 * level the policy names (`spec.workloads.podSecurity`: `baseline` by default, `restricted`, or
 * `privileged`, which checks nothing and needs `allowHostAccess`).
 *
 * The engine writes to the host with its own identity, so what a copy carries the tenant
 * effectively has: a capability, an unconfined profile or an unsafe sysctl copied as written is a
 * way from the tenant's container to the node, which holds other tenants' Pods and Secrets. The
 * checks are upstream's own (`k8s.io/pod-security-admission` v0.37.2, `policy/check_*.go`, the
 * latest version of each; `pod-security-baseline.ts`, `pod-security-restricted.ts`), proven
 * against its pass/fail fixtures (`test/unit/.../pod-security-fixtures.test.ts`), and assembled
 * as its registry assembles them: the restricted level runs every baseline check but the ones a
 * restricted check overrides, baseline checks first, each group ordered by id.
 *
 * The host's own Pod Security admission (the host namespace's `pod-security.kubernetes.io/enforce`
 * label) stays a second wall: the engine's check makes a violation a Skip naming the field instead
 * of a host create error, and holds when the operator forgot the label.
 */
import type { KubeObject } from '../../../../ports/index.js';
import { PodSecurityLevel as Level, type PodSecurityLevel } from '../../../policy/isolation.js';
import { isolationOf } from '../../../policy/workloads.js';
import type { TranslateTarget } from '../../frame/translator.js';
import type { PodFacts } from '../facts.js';
import { BASELINE_CHECKS } from './pod-security-baseline.js';
import { RESTRICTED_CHECKS } from './pod-security-restricted.js';
import { type PodSecurityCheck, type PodView, record } from './pod-security-support.js';

export type { PodSecurityCheck, PodView } from './pod-security-support.js';

/** One field of a Pod that breaks a check of the level. */
export interface PodSecurityViolation {
  /** Upstream's check id (`capabilities_baseline`). */
  check: string;
  /** The field: `spec.containers[web].securityContext.capabilities.add`. */
  path: string;
  /** The value not allowed (`SYS_ADMIN`), or the one required when `required`. */
  value: string;
  required: boolean;
}

const overridden = new Set(RESTRICTED_CHECKS.flatMap((check) => check.overrides ?? []));

/** The checks of each level that checks anything, in the order they run. */
const CHECKS: Readonly<Record<'baseline' | 'restricted', readonly PodSecurityCheck[]>> = {
  baseline: BASELINE_CHECKS,
  restricted: [
    ...BASELINE_CHECKS.filter((check) => !overridden.has(check.id)),
    ...RESTRICTED_CHECKS,
  ],
};

/** The checks `level` runs (none for `privileged`), in order. */
export function podSecurityChecks(level: PodSecurityLevel): readonly PodSecurityCheck[] {
  return level === Level.Privileged ? [] : CHECKS[level];
}

/** What the checks read of a Pod (or of a Pod template: `metadata` and `spec`). */
export function podView(pod: { metadata?: unknown; spec?: unknown }): PodView {
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(record(pod.metadata)?.annotations) ?? {})) {
    if (typeof value === 'string') annotations[key] = value;
  }
  return { annotations, spec: record(pod.spec) ?? {} };
}

/** Every violation of `level` on `pod`, check by check, in the order the checks run. */
export function podSecurityViolations(
  pod: { metadata?: unknown; spec?: unknown },
  level: PodSecurityLevel,
): PodSecurityViolation[] {
  if (level === Level.Privileged) return [];
  const view = podView(pod);
  return CHECKS[level].flatMap((check) =>
    check.findings(view).map((finding) => ({
      check: check.id,
      path: finding.path,
      value: finding.value,
      required: finding.required === true,
    })),
  );
}

/** A violation in words: the field, the value, the level and the check. */
export function violationText(violation: PodSecurityViolation, level: PodSecurityLevel): string {
  const verdict = violation.required ? 'is required' : 'is not allowed';
  return `${violation.path}: ${violation.value} ${verdict} by the Pod Security Standard "${level}" (${violation.check})`;
}

/**
 * The Skip reason of a Pod that does not meet `level`: its first violation, what sets the level,
 * and how many more there are (so a tenant fixing one learns there is more); `undefined` when it
 * meets the level.
 */
export function podSecurityRefusal(pod: KubeObject, level: PodSecurityLevel): string | undefined {
  const [first, ...rest] = podSecurityViolations(pod, level);
  if (!first) return undefined;
  const more =
    rest.length === 0 ? '' : `; ${rest.length} more violation${rest.length === 1 ? '' : 's'}`;
  return `${violationText(first, level)}, the level of spec.workloads.podSecurity${more}`;
}

/**
 * The Pod's `hostRefusal`: the host Pod checked at the policy's level. It is the host Pod, not the
 * tenant's, that is checked: it is what the host runs and what the host's own admission judges,
 * and the engine's own changes count both ways: what it adds (the token volume and environment,
 * DNS settings, the runtime and priority class the policy forces) must pass too, and what it drops
 * before writing (ephemeral containers, the tenant's service account) is no violation of a Pod
 * the host never sees.
 */
export function podSecurityHostRefusal(
  host: KubeObject,
  target: TranslateTarget<PodFacts>,
): string | undefined {
  return podSecurityRefusal(host, isolationOf(target.workloads).podSecurity);
}
