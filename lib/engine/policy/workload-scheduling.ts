/**
 * The parts of `spec.workloads` that say where tenant Pods run and on what storage: the node
 * selector and tolerations the policy enforces on every host Pod, and the host classes that
 * tenant classes map to. Parsed here with the errors the host would give, so a policy the host
 * would refuse at every Pod's create is refused once, at the policy.
 */
import { isRecord } from '../../common/index.js';

/** A DNS-1123 subdomain: class names, label key prefixes. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The name part of a qualified name, and a non-empty label value. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Whether `value` is a DNS-1123 subdomain (a class or service account name). */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && SUBDOMAIN.test(value);
}

/** Whether `key` is a label key: `[prefix/]name`, the prefix a DNS subdomain. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  if (prefix !== undefined && !isDnsSubdomain(prefix)) return false;
  return name.length <= 63 && NAME.test(name);
}

/** Whether `value` is a label value (empty allowed). */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && NAME.test(value));
}

/** A toleration, as the Kubernetes API spells it. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

const EFFECTS: readonly string[] = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const TOLERATION_FIELDS: readonly string[] = [
  'key',
  'operator',
  'value',
  'effect',
  'tolerationSeconds',
];

/**
 * Parses `spec.workloads.<field>`: a map of class names to class names (tenant class -> host
 * class). Returns the valid entries; each invalid one is a problem.
 */
export function parseClassMap(
  value: unknown,
  field: string,
  what: string,
  problems: string[],
): Record<string, string> | undefined {
  const problem = `spec.workloads.${field} must map tenant ${what} names to host ones`;
  if (!isRecord(value)) {
    problems.push(problem);
    return undefined;
  }
  const classes: Record<string, string> = {};
  for (const [tenantClass, hostClass] of Object.entries(value)) {
    if (
      !isDnsSubdomain(tenantClass) ||
      typeof hostClass !== 'string' ||
      !isDnsSubdomain(hostClass)
    ) {
      problems.push(`${problem} (${JSON.stringify(tenantClass)} is not)`);
    } else classes[tenantClass] = hostClass;
  }
  return classes;
}

/** Parses `spec.workloads.nodeSelector`: node label keys to values, as a Pod's `nodeSelector`. */
export function parseNodeSelector(
  value: unknown,
  problems: string[],
): Record<string, string> | undefined {
  if (!isRecord(value)) {
    problems.push('spec.workloads.nodeSelector must map node label keys to values');
    return undefined;
  }
  const selector: Record<string, string> = {};
  for (const [key, label] of Object.entries(value)) {
    if (!isLabelKey(key)) {
      problems.push(`spec.workloads.nodeSelector: ${JSON.stringify(key)} is not a label key`);
    } else if (typeof label !== 'string' || !isLabelValue(label)) {
      problems.push(`spec.workloads.nodeSelector.${key} must be a label value`);
    } else selector[key] = label;
  }
  return selector;
}

/** The problems of one toleration, as the host's validation of a Pod would name them. */
function tolerationProblems(t: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { key = '', operator = 'Equal', value = '', effect = '', tolerationSeconds } = t;
  for (const field of Object.keys(t)) {
    if (!TOLERATION_FIELDS.includes(field)) problems.push(`has an unknown field "${field}"`);
  }
  if (typeof key !== 'string' || (key !== '' && !isLabelKey(key))) {
    problems.push('key must be a label key');
  }
  if (operator !== 'Exists' && operator !== 'Equal') {
    problems.push('operator must be Exists or Equal');
  } else if (key === '' && operator !== 'Exists') {
    problems.push('operator must be Exists when key is empty');
  }
  if (typeof value !== 'string' || !isLabelValue(value))
    problems.push('value must be a label value');
  else if (operator === 'Exists' && value !== '') problems.push('value must be empty for Exists');
  if (effect !== '' && !EFFECTS.includes(String(effect))) {
    problems.push('effect must be NoSchedule, PreferNoSchedule or NoExecute');
  }
  if (tolerationSeconds !== undefined) {
    if (!Number.isInteger(tolerationSeconds)) problems.push('tolerationSeconds must be an integer');
    else if (effect !== 'NoExecute') problems.push('tolerationSeconds needs effect NoExecute');
  }
  return problems;
}

/**
 * Parses a list of tolerations at `path`: `spec.workloads.tolerations` (every host Pod gets them)
 * by default, or `spec.workloads.scheduling.tolerations` (those a tenant Pod may carry).
 */
export function parseTolerations(
  value: unknown,
  problems: string[],
  path = 'spec.workloads.tolerations',
): Toleration[] | undefined {
  if (!Array.isArray(value)) {
    problems.push(`${path} must be a list of tolerations`);
    return undefined;
  }
  const tolerations: Toleration[] = [];
  for (const [i, t] of value.entries()) {
    const at = `${path}[${i}]`;
    if (!isRecord(t)) {
      problems.push(`${at} must be a toleration (key, operator, value, effect)`);
      continue;
    }
    const found = tolerationProblems(t);
    if (found.length > 0) problems.push(...found.map((p) => `${at}: ${p}`));
    else tolerations.push({ ...t } as Toleration);
  }
  return tolerations;
}
