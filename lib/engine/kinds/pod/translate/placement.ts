/**
 * Where a tenant Pod may ask to run on the host: the taints it may tolerate and the node labels it
 * may select on are the operator's to hand out (`spec.workloads.scheduling`), since a toleration
 * of the taint on nodes dedicated to another customer, the control plane or a cordoned node, with
 * a selector on that customer's label, puts the Pod there. Anything else is a Skip naming the
 * field; nothing is silently changed, but for one toleration below.
 *
 * Allowed without a word of the policy: the tolerations of condition taints
 * (`CONDITION_TOLERATIONS`: what `DefaultTolerationSeconds` and a DaemonSet controller add), the
 * policy's own `spec.workloads.tolerations` and `nodeSelector`, selection on the labels a tenant
 * Node shows (`NODE_COPIED_LABELS`: where and on what a Pod runs, never whose node it is) and on a
 * node's name (`matchFields`, as a DaemonSet's Pods name theirs), and `NotIn`/`DoesNotExist`
 * expressions, which only keep a Pod away from nodes.
 *
 * A DaemonSet's Pods also carry `node.kubernetes.io/unschedulable`, which the tenant's DaemonSet
 * controller adds, not the tenant: on a Pod whose controller is a DaemonSet that toleration is left
 * off the host copy unless the policy allows it, so the Pod respects the operator's cordon and
 * waits for its node rather than being refused. Leaving it off only narrows where the Pod runs, so
 * an ownerReference the tenant wrote gains nothing.
 */
import { isRecord } from '../../../../common/index.js';
import { NODE_COPIED_LABELS } from '../../../names/metadata.js';
import { CONDITION_TOLERATIONS, coversToleration } from '../../../policy/scheduling-limits.js';
import { isolationOf, type Toleration, type WorkloadPolicy } from '../../../policy/workloads.js';
import { toleratesAll } from './sandbox.js';

type Json = Record<string, unknown>;
/** A Pod's metadata, of which its `ownerReferences` say who controls it. */
type Owned = { readonly [field: string]: unknown };

const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const NODE_AFFINITY = 'spec.affinity.nodeAffinity';
const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';
/** Expressions that only keep a Pod away from nodes. */
const AWAY = ['NotIn', 'DoesNotExist'];

/** Every toleration a tenant Pod may carry under `policy`. */
function allowedTolerations(policy: WorkloadPolicy | undefined): Toleration[] {
  return [
    ...CONDITION_TOLERATIONS,
    ...(policy?.tolerations ?? []),
    ...isolationOf(policy).scheduling.tolerations,
  ];
}

/** Whether `metadata` names a DaemonSet as the Pod's controller. */
function controlledByDaemonSet(metadata: Owned | undefined): boolean {
  const owners = metadata?.ownerReferences;
  return (
    Array.isArray(owners) &&
    owners.some((o) => isRecord(o) && o.controller === true && o.kind === 'DaemonSet')
  );
}

/** Whether `t` is the toleration of a cordon that a DaemonSet controller adds to its Pods. */
function daemonSetCordon(t: Json): boolean {
  return t.key === UNSCHEDULABLE && t.operator === 'Exists' && t.effect === 'NoSchedule';
}

/** Whether `t` stays off the host copy (see the module doc). */
function leftOff(t: unknown, daemonSet: boolean, allowed: readonly Toleration[]): boolean {
  return (
    daemonSet && isRecord(t) && daemonSetCordon(t) && !allowed.some((a) => coversToleration(a, t))
  );
}

function tolerationRefusal(
  spec: Json,
  metadata: Owned | undefined,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (!Array.isArray(spec.tolerations)) return undefined;
  const allowed = allowedTolerations(policy);
  const daemonSet = controlledByDaemonSet(metadata);
  const tolerateAll = isolationOf(policy).allowTolerateAll;
  for (const [i, t] of spec.tolerations.entries()) {
    if (!isRecord(t) || (tolerateAll && toleratesAll(t)) || leftOff(t, daemonSet, allowed)) {
      continue;
    }
    if (allowed.some((a) => coversToleration(a, t))) continue;
    const key = typeof t.key === 'string' ? t.key : '';
    const what = [`operator ${String(t.operator ?? 'Equal')}`];
    if (t.value !== undefined && t.value !== '') what.push(`value "${String(t.value)}"`);
    if (t.effect !== undefined && t.effect !== '') what.push(`effect ${String(t.effect)}`);
    return `the Pod tolerates the taint "${key}" (spec.tolerations[${i}]: ${what.join(', ')}), which would let it onto nodes the operator set aside for others, and the policy does not allow it (spec.workloads.scheduling.tolerations); only the condition taints' tolerations the apiserver adds are allowed by default`;
  }
  return undefined;
}

/** Whether a Pod may select nodes whose label `key` is `value` (any value when undefined). */
function selectable(key: string, value: string | undefined, policy: WorkloadPolicy | undefined) {
  if (NODE_COPIED_LABELS.includes(key)) return true;
  // The policy's own keys: its value wins over the tenant's in the host Pod's selector anyway.
  if (policy?.nodeSelector?.[key] !== undefined) return true;
  const rules = isolationOf(policy).scheduling.nodeLabels;
  return rules.some((r) => r.key === key && (r.value === undefined || r.value === value));
}

function labelRefusal(key: string, values: readonly string[], path: string): string {
  const which = values.length > 0 ? ` = ${values.map((v) => `"${v}"`).join(' or ')}` : '';
  return `the Pod selects nodes by label "${key}"${which} (${path}), which the policy does not allow (spec.workloads.scheduling.nodeLabels): the operator's node labels may set nodes aside for others; only the labels a tenant Node shows (${NODE_COPIED_LABELS.join(', ')}) are allowed by default`;
}

/** The refusal of one node selector requirement (`matchExpressions` entry), if any. */
function expressionRefusal(
  expression: unknown,
  path: string,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (!isRecord(expression) || typeof expression.key !== 'string') return undefined;
  const { key, operator } = expression;
  if (typeof operator === 'string' && AWAY.includes(operator)) return undefined;
  const values = Array.isArray(expression.values)
    ? expression.values.filter((v): v is string => typeof v === 'string')
    : [];
  // `In` selects its values; `Exists`, `Gt` and `Lt` any value of the key.
  const ok =
    operator === 'In' && values.length > 0
      ? values.every((v) => selectable(key, v, policy))
      : selectable(key, undefined, policy);
  return ok ? undefined : labelRefusal(key, operator === 'In' ? values : [], path);
}

/** The refusal of one node selector term (`matchExpressions`; `matchFields` name nodes). */
function termRefusal(term: unknown, path: string, policy: WorkloadPolicy | undefined) {
  if (!isRecord(term) || !Array.isArray(term.matchExpressions)) return undefined;
  for (const [j, e] of term.matchExpressions.entries()) {
    const refused = expressionRefusal(e, `${path}.matchExpressions[${j}]`, policy);
    if (refused) return refused;
  }
  return undefined;
}

function nodeSelectionRefusal(spec: Json, policy: WorkloadPolicy | undefined): string | undefined {
  if (isRecord(spec.nodeSelector)) {
    for (const [key, value] of Object.entries(spec.nodeSelector)) {
      const v = typeof value === 'string' ? value : '';
      if (!selectable(key, v, policy)) return labelRefusal(key, [v], `spec.nodeSelector.${key}`);
    }
  }
  const node = isRecord(spec.affinity) ? spec.affinity.nodeAffinity : undefined;
  if (!isRecord(node)) return undefined;
  const required = isRecord(node[REQUIRED]) ? node[REQUIRED].nodeSelectorTerms : undefined;
  for (const [i, term] of (Array.isArray(required) ? required : []).entries()) {
    const at = `${NODE_AFFINITY}.${REQUIRED}.nodeSelectorTerms[${i}]`;
    const refused = termRefusal(term, at, policy);
    if (refused) return refused;
  }
  const preferred = Array.isArray(node[PREFERRED]) ? node[PREFERRED] : [];
  for (const [i, entry] of preferred.entries()) {
    const at = `${NODE_AFFINITY}.${PREFERRED}[${i}].preference`;
    const refused = isRecord(entry) ? termRefusal(entry.preference, at, policy) : undefined;
    if (refused) return refused;
  }
  return undefined;
}

/**
 * The Skip reason of a tenant Pod that tolerates a taint or selects a node label the policy does
 * not allow (see the module doc); `undefined` otherwise.
 */
export function placementRefusal(
  spec: unknown,
  metadata: Owned | undefined,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (!isRecord(spec)) return undefined;
  return tolerationRefusal(spec, metadata, policy) ?? nodeSelectionRefusal(spec, policy);
}

/**
 * Leaves a DaemonSet's cordon toleration off a host Pod spec (in place) unless the policy allows
 * it (see the module doc). Before the policy's own tolerations are added.
 */
export function dropDaemonSetCordon(
  spec: Json,
  metadata: Owned | undefined,
  policy: WorkloadPolicy | undefined,
): void {
  if (!Array.isArray(spec.tolerations) || !controlledByDaemonSet(metadata)) return;
  const allowed = allowedTolerations(policy);
  spec.tolerations = spec.tolerations.filter((t: unknown) => !leftOff(t, true, allowed));
}
