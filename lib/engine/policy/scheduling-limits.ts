/**
 * `spec.workloads.scheduling`: the tolerations and node labels a tenant Pod may ask the host's
 * scheduler for. A toleration of a taint the operator put on nodes dedicated to someone else (a
 * customer, the control plane, a cordoned node) would let the tenant's Pod onto them, and a
 * selector on the operator's own node labels would pick those nodes out; both are the operator's to
 * hand out, as the `PodTolerationRestriction` admission plugin's whitelist and vcluster's
 * `enforceTolerations` do. Parsed here; the Pod's check is `kinds/pod/translate/placement.ts`.
 */
import { isRecord } from '../../common/index.js';
import {
  isLabelKey,
  isLabelValue,
  parseTolerations,
  type Toleration,
} from './workload-scheduling.js';

/** A node label a tenant Pod may select on: any value of `key`, or `value` only when set. */
export interface NodeLabelRule {
  key: string;
  value?: string;
}

/** What a tenant Pod may ask of the host's scheduler beyond the defaults. */
export interface SchedulingLimits {
  /** Tolerations a tenant Pod may carry, matched as `PodTolerationRestriction` matches them. */
  tolerations: readonly Toleration[];
  /** Node labels a tenant Pod may select on (`key` or `key=value`). */
  nodeLabels: readonly NodeLabelRule[];
}

/** The narrowest: only the defaults. */
export const NO_SCHEDULING_LIMITS: SchedulingLimits = Object.freeze({
  tolerations: [],
  nodeLabels: [],
});

/**
 * Tolerations every tenant Pod may carry: those of the taints the node lifecycle controller sets
 * from a node's conditions, which never set a node aside for anyone. The first two are what
 * `DefaultTolerationSeconds` admission adds to every Pod (the tenant's apiserver runs it too), the
 * others what a DaemonSet controller adds to its Pods. `node.kubernetes.io/unschedulable` is not
 * among them: it would let a Pod onto a node the operator cordoned.
 */
export const CONDITION_TOLERATIONS: readonly Toleration[] = Object.freeze(
  [
    ['node.kubernetes.io/not-ready', 'NoExecute'],
    ['node.kubernetes.io/unreachable', 'NoExecute'],
    ['node.kubernetes.io/disk-pressure', 'NoSchedule'],
    ['node.kubernetes.io/memory-pressure', 'NoSchedule'],
    ['node.kubernetes.io/pid-pressure', 'NoSchedule'],
    ['node.kubernetes.io/network-unavailable', 'NoSchedule'],
  ].map(([key, effect]) => Object.freeze({ key, operator: 'Exists', effect }) as Toleration),
);

const PATH = 'spec.workloads.scheduling';

/** Parses one `key` or `key=value` entry of `nodeLabels`. */
function nodeLabelRule(entry: unknown): NodeLabelRule | undefined {
  if (typeof entry !== 'string') return undefined;
  const eq = entry.indexOf('=');
  const key = eq < 0 ? entry : entry.slice(0, eq);
  const value = eq < 0 ? undefined : entry.slice(eq + 1);
  if (!isLabelKey(key) || (value !== undefined && !isLabelValue(value))) return undefined;
  return value === undefined ? { key } : { key, value };
}

/** Parses `spec.workloads.scheduling`; every problem goes to `problems`. */
export function parseSchedulingLimits(value: unknown, problems: string[]): SchedulingLimits {
  if (value === undefined) return NO_SCHEDULING_LIMITS;
  if (!isRecord(value)) {
    problems.push(`${PATH} must be an object`);
    return NO_SCHEDULING_LIMITS;
  }
  const tolerations =
    value.tolerations === undefined
      ? []
      : (parseTolerations(value.tolerations, problems, `${PATH}.tolerations`) ?? []);
  const nodeLabels: NodeLabelRule[] = [];
  if (value.nodeLabels !== undefined) {
    if (!Array.isArray(value.nodeLabels)) {
      problems.push(`${PATH}.nodeLabels must be a list of node label keys or key=value`);
    } else {
      for (const entry of value.nodeLabels) {
        const rule = nodeLabelRule(entry);
        if (rule) nodeLabels.push(rule);
        else problems.push(`${PATH}.nodeLabels has ${JSON.stringify(entry)}, not key or key=value`);
      }
    }
  }
  return { tolerations, nodeLabels };
}

const keyOf = (t: Record<string, unknown>) => (typeof t.key === 'string' ? t.key : '');
const operatorOf = (t: Record<string, unknown>) =>
  t.operator === undefined || t.operator === '' ? 'Equal' : t.operator;
const effectOf = (t: Record<string, unknown>) => (typeof t.effect === 'string' ? t.effect : '');

/**
 * Whether `allowed` tolerates everything `asked` tolerates: the `PodTolerationRestriction`
 * plugin's rule. The same key (an allowed `Exists` without a key covers every key); the same
 * effect (an allowed one without an effect covers every effect); an allowed `NoExecute` with
 * `tolerationSeconds` covers no longer stay; an allowed `Exists` covers any value, an `Equal` only
 * an `Equal` of its value.
 */
export function coversToleration(allowed: Toleration, asked: Record<string, unknown>): boolean {
  const a = allowed as Record<string, unknown>;
  if (keyOf(asked) !== keyOf(a) && (keyOf(a) !== '' || operatorOf(a) !== 'Exists')) return false;
  if (effectOf(asked) !== effectOf(a) && effectOf(a) !== '') return false;
  if (effectOf(a) === 'NoExecute' && typeof allowed.tolerationSeconds === 'number') {
    const stay = asked.tolerationSeconds;
    if (typeof stay !== 'number' || stay > allowed.tolerationSeconds) return false;
  }
  if (operatorOf(a) === 'Exists') return true;
  return operatorOf(asked) === 'Equal' && (asked.value ?? '') === (allowed.value ?? '');
}
