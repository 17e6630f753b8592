/**
 * Selectors stay inside their tenant and virtual namespace. On the host, one namespace holds the
 * Pods of every virtual namespace of a tenant (and of other tenants), so a tenant selector such as
 * `app: web` would select all of them. Every selector the engine writes (Services,
 * NetworkPolicies, affinity and topology spread) is scoped here: its keys go through the one key
 * function {@link hostLabelKey}, the same one that names the labels of host Pods, and it gains
 * the tenant and virtual-namespace labels that every host copy carries.
 *
 * Everything here is idempotent: scoping a scoped selector changes nothing, so a selector read
 * back from the host and scoped again can never drift or pile up prefixes.
 */
import { createHash } from 'node:crypto';
import { cloneJson, isRecord } from '../../../common/index.js';
import { CARRIED_KEY_DOMAIN, isReservedKey, KubernetesKeys, Labels } from '../../names/metadata.js';

/** One requirement of a label selector, as the Kubernetes API spells it. */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** A label selector, as the Kubernetes API spells it (`metav1.ApiLabelSelector`). */
export interface ApiLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * Where a scoped selector may reach: the tenant, and either one virtual namespace or requirements
 * on the virtual-namespace label ({@link namespaceRequirements}; an empty list reaches every
 * virtual namespace of the tenant).
 */
export interface SelectorScope {
  tenant: string;
  virtualNamespace: string | readonly LabelSelectorRequirement[];
}

/**
 * The two labels a scope sets. They are the engine's: a tenant label or requirement on them is
 * dropped (the engine's value replaces it), which is also what keeps scoping idempotent.
 */
const SCOPE_KEYS: ReadonlySet<string> = new Set([Labels.Tenant, Labels.VirtualNamespace]);

const CARRIED_SUFFIX = `.${CARRIED_KEY_DOMAIN}`;
/** A label key's prefix is a DNS subdomain: at most 253 characters. */
const MAX_PREFIX = 253;

/**
 * The one key function: the key a tenant label key has on the host. A key that is not reserved
 * stays as it is; a reserved one (`app.kubernetes.io/managed-by`, `tenantplane.io/kind`) is
 * carried under `<prefix>.carried.tenantplane.io/<name>` (a prefix too long for that is replaced
 * by a digest of it), because the engine writes its own values under the reserved keys. The
 * scope keys and carried keys are fixed points, so the function is idempotent.
 */
export function hostLabelKey(key: string): string {
  if (!isReservedKey(key) || SCOPE_KEYS.has(key)) return key;
  const slash = key.indexOf('/');
  if (slash < 0) return key;
  const prefix = key.slice(0, slash).toLowerCase();
  if (prefix.endsWith(CARRIED_SUFFIX)) return key;
  let carried = prefix + CARRIED_SUFFIX;
  if (carried.length > MAX_PREFIX) {
    const digest = createHash('sha256').update(prefix, 'utf8').digest('hex').slice(0, 16);
    carried = `h${digest}${CARRIED_SUFFIX}`;
  }
  return carried + key.slice(slash);
}

/**
 * The tenant labels under reserved keys, carried under their {@link hostLabelKey}: what a host Pod
 * adds to the labels the generic transform kept (which drops reserved keys), so a selector on
 * `app.kubernetes.io/managed-by: Helm` still finds it. `excluded` keys (policy exclusions) stay
 * off. The scope keys are never carried: the engine sets them.
 */
export function carriedLabels(
  labels: Readonly<Record<string, string>> | undefined,
  excluded?: (key: string) => boolean,
): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!isReservedKey(key) || SCOPE_KEYS.has(key) || excluded?.(key)) continue;
    carried[hostLabelKey(key)] = value;
  }
  return carried;
}

/** Every tenant label under its {@link hostLabelKey}, the scope keys left out (the engine sets them). */
export function hostLabels(
  labels: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const host: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!SCOPE_KEYS.has(key)) host[hostLabelKey(key)] = value;
  }
  return host;
}

/** A requirement read from the API's JSON under `key`: its operator and values copied. */
function requirementOf(from: Record<string, unknown>, key: string): LabelSelectorRequirement {
  const requirement: LabelSelectorRequirement = { key, operator: String(from.operator) };
  if (Array.isArray(from.values)) {
    requirement.values = from.values.filter((v): v is string => typeof v === 'string');
  }
  return requirement;
}

function scopedLabels(from: unknown): Record<string, string> {
  const labels: Record<string, string> = {};
  if (!isRecord(from)) return labels;
  for (const [key, value] of Object.entries(from)) {
    if (typeof value === 'string' && !SCOPE_KEYS.has(key)) labels[hostLabelKey(key)] = value;
  }
  return labels;
}

/**
 * A plain selector map (a Service's `spec.selector`) scoped to one virtual namespace. The caller
 * decides what an absent or empty map means (a Service without a selector selects nothing and
 * must stay so): this function always returns a scoped, non-empty map.
 */
export function scopeSelectorMap(
  selector: unknown,
  scope: { tenant: string; virtualNamespace: string },
): Record<string, string> {
  const labels = scopedLabels(selector);
  labels[Labels.Tenant] = scope.tenant;
  labels[Labels.VirtualNamespace] = scope.virtualNamespace;
  return labels;
}

/**
 * A label selector scoped with the tenant and virtual-namespace labels: keys through
 * {@link hostLabelKey}, requirements on the scope keys replaced by the scope's. An empty selector
 * (`{}`, "everything") becomes everything of the scope. The caller decides what an absent
 * selector means (an affinity term without one selects nothing and must stay so).
 */
export function scopeLabelSelector(selector: unknown, scope: SelectorScope): ApiLabelSelector {
  const from = isRecord(selector) ? selector : {};
  const matchLabels = scopedLabels(from.matchLabels);
  const matchExpressions: LabelSelectorRequirement[] = [];
  if (Array.isArray(from.matchExpressions)) {
    for (const e of from.matchExpressions) {
      if (!isRecord(e) || typeof e.key !== 'string' || SCOPE_KEYS.has(e.key)) continue;
      matchExpressions.push(requirementOf(e, hostLabelKey(e.key)));
    }
  }
  matchLabels[Labels.Tenant] = scope.tenant;
  if (typeof scope.virtualNamespace === 'string') {
    matchLabels[Labels.VirtualNamespace] = scope.virtualNamespace;
  } else {
    for (const r of scope.virtualNamespace) matchExpressions.push(cloneJson(r));
  }
  const scoped: ApiLabelSelector = { matchLabels };
  if (matchExpressions.length > 0) scoped.matchExpressions = matchExpressions;
  return scoped;
}

/** Which namespaces a namespace selector reaches, as virtual-namespace requirements, or why not. */
export type NamespaceRequirements =
  | { requirements: LabelSelectorRequirement[] }
  | { refused: string };

/**
 * A tenant namespace selector (a NetworkPolicy peer's, an affinity term's) as requirements on the
 * virtual-namespace label of host Pods. The host cannot see tenant namespaces or their labels, so
 * only the label every namespace carries with its own name (`kubernetes.io/metadata.name`) can be
 * translated; a selector on any other namespace label is refused, naming the label. `{}` (every
 * namespace) is no requirement: every virtual namespace of the tenant.
 */
export function namespaceRequirements(selector: unknown): NamespaceRequirements {
  const from = isRecord(selector) ? selector : {};
  const requirements: LabelSelectorRequirement[] = [];
  const refuse = (key: string): NamespaceRequirements => ({
    refused: `its namespaceSelector selects namespaces by the label "${key}", which the host cannot see: only ${KubernetesKeys.NamespaceName} can be translated`,
  });
  if (isRecord(from.matchLabels)) {
    for (const [key, value] of Object.entries(from.matchLabels)) {
      if (key !== KubernetesKeys.NamespaceName) return refuse(key);
      if (typeof value !== 'string') continue;
      requirements.push({ key: Labels.VirtualNamespace, operator: 'In', values: [value] });
    }
  }
  if (Array.isArray(from.matchExpressions)) {
    for (const e of from.matchExpressions) {
      if (!isRecord(e) || typeof e.key !== 'string') continue;
      if (e.key !== KubernetesKeys.NamespaceName) return refuse(e.key);
      requirements.push(requirementOf(e, Labels.VirtualNamespace));
    }
  }
  return { requirements };
}
