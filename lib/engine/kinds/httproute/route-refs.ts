/**
 * What a Gateway API route refers to, and how each reference reaches the host. A host route is
 * served by a Gateway every tenant attached to it shares, with the host's authority, so
 * (`spec.workloads.gateways`, each refusal a Skip naming the field):
 *
 * - a parent (`spec.parentRefs[]`) must be a Gateway the policy lists in `parents` (the tenant
 *   names it by the host Gateway's namespace and name; a namespace left out is the route's own),
 *   and the listed listener when the policy names one; on the host the reference carries the
 *   Gateway's namespace, since the copy lives in the tenant's host namespace;
 * - a backend (`rules[].backendRefs[]`, and each request mirror's `backendRef`) must be a Service
 *   of the route's own namespace: on the host it names that Service's copy. Another namespace is
 *   refused whatever a tenant ReferenceGrant says (grants are not synced: on the host the whole
 *   tenant is one namespace, and a grant there would reach another tenant's copies); another kind
 *   is refused (the engine could not say which copy it is);
 * - a filter's `extensionRef` names an implementation's own object, which no copy maps: refused;
 *   so is a filter field the engine does not know (it might name a backend unchecked).
 */
import { isRecord } from '../../../common/index.js';
import type { GatewayLimits } from '../../policy/isolation.js';

/** The API group of the Gateway API. */
export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

const KNOB = 'spec.workloads.gateways';

/** One reference of a route, where. */
export interface RefAt {
  readonly ref: Record<string, unknown>;
  /** `spec.parentRefs[0]`, `spec.rules[1].backendRefs[0]`. */
  readonly path: string;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Every parent reference of a route spec. */
export function parentRefsOf(spec: unknown): RefAt[] {
  if (!isRecord(spec) || !Array.isArray(spec.parentRefs)) return [];
  return spec.parentRefs.flatMap((ref, i) =>
    isRecord(ref) ? [{ ref, path: `spec.parentRefs[${i}]` }] : [],
  );
}

/** Every filter of a route spec (rules' and backends'), with where it is. */
function filtersOf(spec: unknown): RefAt[] {
  if (!isRecord(spec)) return [];
  const found: RefAt[] = [];
  records(spec.rules).forEach((rule, r) => {
    records(rule.filters).forEach((ref, f) => {
      found.push({ ref, path: `spec.rules[${r}].filters[${f}]` });
    });
    records(rule.backendRefs).forEach((backend, b) => {
      records(backend.filters).forEach((ref, f) => {
        found.push({ ref, path: `spec.rules[${r}].backendRefs[${b}].filters[${f}]` });
      });
    });
  });
  return found;
}

/** Every backend reference of a route spec: the rules' backends, then the request mirrors'. */
export function backendRefsOf(spec: unknown): RefAt[] {
  if (!isRecord(spec)) return [];
  const found: RefAt[] = [];
  records(spec.rules).forEach((rule, r) => {
    records(rule.backendRefs).forEach((ref, b) => {
      found.push({ ref, path: `spec.rules[${r}].backendRefs[${b}]` });
    });
  });
  for (const { ref, path } of filtersOf(spec)) {
    const mirror = ref.requestMirror;
    if (isRecord(mirror) && isRecord(mirror.backendRef)) {
      found.push({ ref: mirror.backendRef, path: `${path}.requestMirror.backendRef` });
    }
  }
  return found;
}

/** A parent reference as the host sees it: every default spelt out. */
export function parentKey(ref: Record<string, unknown>, namespace: string): string {
  const text = (value: unknown, fallback: string) =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;
  return [
    text(ref.group, GATEWAY_GROUP),
    text(ref.kind, 'Gateway'),
    text(ref.namespace, namespace),
    text(ref.name, ''),
    text(ref.sectionName, ''),
    text(ref.port, ''),
  ].join('/');
}

function listed(limits: GatewayLimits): string {
  const parents = limits.parents.map(
    (p) => `${p.namespace}/${p.name}${p.sectionName ? `:${p.sectionName}` : ''}`,
  );
  return parents.length === 0 ? 'none' : parents.join(', ');
}

/** Why a parent reference may not be the route's on the host, or `undefined`. */
export function parentRefusal(
  { ref, path }: RefAt,
  virtualNamespace: string,
  limits: GatewayLimits,
): string | undefined {
  const group = ref.group ?? GATEWAY_GROUP;
  const kind = ref.kind ?? 'Gateway';
  if (group !== GATEWAY_GROUP || kind !== 'Gateway') {
    return `${path} is a ${String(kind)} of group "${String(group)}", not a Gateway; a route's parents may only be host Gateways the policy lists (${KNOB}.parents: ${listed(limits)})`;
  }
  const namespace = typeof ref.namespace === 'string' ? ref.namespace : virtualNamespace;
  const allowed = limits.parents.some(
    (p) =>
      p.namespace === namespace &&
      p.name === ref.name &&
      (p.sectionName === undefined || p.sectionName === ref.sectionName),
  );
  if (allowed) return undefined;
  const section = typeof ref.sectionName === 'string' ? ` (listener ${ref.sectionName})` : '';
  return `${path} names the Gateway ${namespace}/${String(ref.name)}${section}, which is not one the policy allows (${KNOB}.parents: ${listed(limits)})`;
}

/** Why a backend reference may not go to the host, or `undefined`. */
export function backendRefusal({ ref, path }: RefAt, virtualNamespace: string): string | undefined {
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Service';
  if (group !== '' || kind !== 'Service') {
    return `${path} is a ${String(kind)} of group "${String(group)}"; a route's backends may only be Services of its own namespace, whose host copies the engine names`;
  }
  if (ref.namespace !== undefined && ref.namespace !== virtualNamespace) {
    return `${path}.namespace "${String(ref.namespace)}" is another namespace; a route's backends may only be Services of its own namespace (ReferenceGrants are not synced to the host)`;
  }
  if (typeof ref.name !== 'string' || ref.name === '') return `${path}.name is not set`;
  return undefined;
}

/**
 * The filter fields of the standard channel (v1.6) whose references the engine checks or that
 * refer to nothing; a field it does not know (an experimental `externalAuth`, a later one) may
 * name a backend the engine cannot check, so it is refused rather than copied unseen.
 */
const KNOWN_FILTER_FIELDS: ReadonlySet<string> = new Set([
  'type',
  'requestHeaderModifier',
  'responseHeaderModifier',
  'requestMirror',
  'requestRedirect',
  'urlRewrite',
  'cors',
]);

/**
 * The route fields of the standard channel (v1.6), in its spec and in each rule; the experimental
 * `retry` and `sessionPersistence` refer to nothing. Anything else (an experimental
 * `useDefaultGateways`, which attaches a route to Gateways it does not name, or a later field)
 * is refused rather than copied unseen.
 */
const KNOWN_SPEC_FIELDS: ReadonlySet<string> = new Set(['parentRefs', 'hostnames', 'rules']);
const KNOWN_RULE_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'matches',
  'filters',
  'backendRefs',
  'timeouts',
  'retry',
  'sessionPersistence',
]);

/** Why a route spec has a field the engine does not know, or `undefined`. */
export function unknownFieldRefusal(spec: unknown): string | undefined {
  if (!isRecord(spec)) return undefined;
  const says = 'is a route field the engine does not know, so what it does cannot be checked';
  const top = Object.keys(spec).find((key) => !KNOWN_SPEC_FIELDS.has(key));
  if (top !== undefined) return `spec.${top} ${says}`;
  for (const [r, rule] of records(spec.rules).entries()) {
    const field = Object.keys(rule).find((key) => !KNOWN_RULE_FIELDS.has(key));
    if (field !== undefined) return `spec.rules[${r}].${field} ${says}`;
  }
  return undefined;
}

/** Why a filter may not go to the host, or `undefined`. */
export function filterRefusal(spec: unknown): string | undefined {
  for (const { ref, path } of filtersOf(spec)) {
    if (ref.extensionRef !== undefined && ref.extensionRef !== null) {
      return `${path}.extensionRef names an object of the gateway implementation's own, which the engine cannot map to this tenant's copies`;
    }
    const unknown = Object.keys(ref).find((key) => !KNOWN_FILTER_FIELDS.has(key));
    if (unknown !== undefined) {
      return `${path}.${unknown} is a filter the engine does not know, so what it refers to cannot be checked`;
    }
  }
  return undefined;
}
