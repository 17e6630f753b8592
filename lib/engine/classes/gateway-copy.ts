/**
 * A host Gateway as the tenant sees it: the read-only copy of a Gateway the policy lets the
 * tenant's routes attach to (`spec.workloads.gateways.parents`), in the same namespace and name as
 * on the host, since that is how the tenant's `parentRefs` name it (docs/gateway-api.md). Pure: no
 * cluster access.
 *
 * A parent entry with a `sectionName` allows one listener: when every entry of a Gateway names
 * one, the copy shows only those listeners (spec and status), the ones its routes may attach to.
 */
import { cloneJson, isRecord, jsonEqual } from '../../common/index.js';
import type { KindRef, KubeObject, ObjectRef } from '../../ports/index.js';
import type { GatewayParent } from '../policy/gateway-limits.js';
import { classCopy } from './class-copy.js';

/** The Gateway kind (a CRD: its reference lives with the step that imports it). */
export const GATEWAY: KindRef = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway' };

/** One allowed host Gateway: where it is, and its listeners the tenant may use (absent: all). */
export interface AllowedGateway {
  readonly namespace: string;
  readonly name: string;
  readonly sections?: ReadonlySet<string>;
}

/** `namespace/name` of a Gateway. */
export function gatewayKey(ref: ObjectRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/**
 * The host Gateways of `parents`, each once, sorted: an entry without `sectionName` allows every
 * listener, so any such entry makes the whole Gateway shown.
 */
export function allowedGateways(parents: readonly GatewayParent[]): AllowedGateway[] {
  const byKey = new Map<string, { namespace: string; name: string; sections?: Set<string> }>();
  const whole = new Set<string>();
  for (const parent of parents) {
    const key = gatewayKey(parent);
    const entry = byKey.get(key) ?? { namespace: parent.namespace, name: parent.name };
    byKey.set(key, entry);
    if (parent.sectionName === undefined) {
      whole.add(key);
      continue;
    }
    entry.sections ??= new Set();
    entry.sections.add(parent.sectionName);
  }
  return [...byKey.keys()].sort().map((key) => {
    const entry = byKey.get(key) as AllowedGateway;
    if (!whole.has(key)) return entry;
    return { namespace: entry.namespace, name: entry.name };
  });
}

/** Keeps the items of a list of named records whose `name` the sections hold. */
function keptListeners(value: unknown, sections: ReadonlySet<string> | undefined): unknown {
  if (!sections || !Array.isArray(value)) return value;
  return value.filter((l) => isRecord(l) && typeof l.name === 'string' && sections.has(l.name));
}

/**
 * The tenant copy of `host` for `tenant` (see {@link classCopy}: the host's labels, annotations
 * and spec, the engine's marks), in the host Gateway's namespace; `undefined` when none of the
 * listeners the policy allows is on the host Gateway (a Gateway without listeners is invalid).
 */
export function gatewayCopy(
  host: KubeObject,
  allowed: AllowedGateway,
  tenant: string,
): KubeObject | undefined {
  const copy = classCopy(host, GATEWAY, tenant);
  copy.metadata.namespace = allowed.namespace;
  if (!allowed.sections) return copy;
  const spec = isRecord(copy.spec) ? copy.spec : {};
  const listeners = keptListeners(spec.listeners, allowed.sections);
  if (!Array.isArray(listeners) || listeners.length === 0) return undefined;
  copy.spec = { ...spec, listeners };
  return copy;
}

/**
 * A condition's `observedGeneration` on the copy: a condition about the host Gateway's current
 * spec is about the copy's current spec (same content); an older one stays older than it.
 */
function mappedConditions(value: unknown, hostGeneration: number, copyGeneration: number) {
  if (!Array.isArray(value)) return value;
  return value.map((condition) => {
    if (!isRecord(condition) || typeof condition.observedGeneration !== 'number') return condition;
    const current = condition.observedGeneration >= hostGeneration;
    const observedGeneration = current ? copyGeneration : Math.max(0, copyGeneration - 1);
    return { ...condition, observedGeneration };
  });
}

/**
 * The status the copy shows: the host Gateway's (addresses, conditions, listeners and the rest),
 * only the allowed listeners' entries, each condition's generation in the copy's terms.
 */
export function gatewayStatus(
  host: KubeObject,
  allowed: AllowedGateway,
  copyGeneration: number,
): Record<string, unknown> {
  const status = isRecord(host.status) ? cloneJson(host.status) : {};
  const { generation } = host.metadata as { generation?: unknown };
  const hostGeneration = typeof generation === 'number' ? generation : 0;
  const map = (conditions: unknown) => mappedConditions(conditions, hostGeneration, copyGeneration);
  if ('conditions' in status) status.conditions = map(status.conditions);
  if (Array.isArray(status.listeners)) {
    const listeners = keptListeners(status.listeners, allowed.sections) as unknown[];
    status.listeners = listeners.map((l) =>
      isRecord(l) && 'conditions' in l ? { ...l, conditions: map(l.conditions) } : l,
    );
  }
  return status;
}

/**
 * The JSON merge patch that turns `observed` into `desired` (records merged key by key, a key
 * `desired` lacks set to null; lists and values replaced whole); `undefined` when they are equal.
 */
export function mergePatch(
  desired: Record<string, unknown>,
  observed: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (jsonEqual(desired, observed)) return undefined;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(observed)) if (!(key in desired)) patch[key] = null;
  for (const [key, value] of Object.entries(desired)) {
    const before = observed[key];
    if (jsonEqual(value, before)) continue;
    const nested = isRecord(value) && isRecord(before) ? mergePatch(value, before) : undefined;
    patch[key] = nested ?? cloneJson(value);
  }
  return patch;
}
