/**
 * Apply: converge one host object on its desired state. Create-only creation, updates only when
 * the engine-owned content differs (carrying the observed resourceVersion), and provenance checks
 * so an object the engine does not own is never clobbered.
 */
import {
  type ClusterApi,
  isClusterError,
  type KubeObject,
  type ObjectMeta,
} from '../ports/index.js';
import { isReservedKey } from './metadata.js';
import { describeOccupant, type Provenance, provenance } from './reverse-mapping.js';
import { ownedKeysOf, restoreHostOwnedFields, stableJson } from './transform.js';

/** The tenant source a desired object came from. */
export interface SourceIdentity {
  tenant: string;
  kind: string;
  virtualNamespace: string;
  virtualName: string;
}

/** What applying one object should do, decided without any request. */
export type ApplyPlan =
  | { action: 'Create' }
  | { action: 'Update'; body: KubeObject; changed: string[] }
  | { action: 'InSync' }
  | { action: 'Skip'; reason: string };

/** Top-level fields that are identity or host state, not content the engine owns. */
const NOT_CONTENT: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'status']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality on JSON values, insensitive to key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/**
 * True when every field of `desired` is present in `observed` with the same value; arrays must
 * have equal length with each element a subset. Extra fields in `observed` are server defaults
 * (a Service's `sessionAffinity`, a Pod's `dnsPolicy`) and do not count as drift.
 */
export function isSubset(desired: unknown, observed: unknown): boolean {
  if (Array.isArray(desired)) {
    return (
      Array.isArray(observed) &&
      desired.length === observed.length &&
      desired.every((d, i) => isSubset(d, observed[i]))
    );
  }
  if (isRecord(desired)) {
    if (!isRecord(observed)) return false;
    return Object.entries(desired).every(
      ([key, value]) => value === undefined || isSubset(value, observed[key]),
    );
  }
  return desired === observed;
}

/**
 * Merges a label or annotation map: keys the engine owned before (`previouslyOwned`) or reserves
 * are dropped from the host's copy, then the desired keys are set. So a key the tenant removed
 * disappears, and a key a host controller added survives.
 */
export function mergeKeys(
  observed: Record<string, string> | undefined,
  desired: Record<string, string> | undefined,
  previouslyOwned: readonly string[],
): Record<string, string> {
  const dropped = new Set(previouslyOwned);
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(observed ?? {})) {
    if (dropped.has(key) || isReservedKey(key)) continue;
    merged[key] = value;
  }
  return Object.assign(merged, desired ?? {});
}

/**
 * The update body for an existing same-source host object, and what differs (field names only,
 * never values: Secret data must not leak into reasons). `changed` is empty when in sync.
 */
export function updateBody(
  desired: KubeObject,
  observed: KubeObject,
): { body: KubeObject; changed: string[] } {
  const owned = ownedKeysOf(observed);
  const labels = mergeKeys(observed.metadata.labels, desired.metadata.labels, owned.labels);
  const annotations = mergeKeys(
    observed.metadata.annotations,
    desired.metadata.annotations,
    owned.annotations,
  );
  const changed: string[] = [];
  if (!jsonEqual(labels, observed.metadata.labels ?? {})) changed.push('labels');
  if (!jsonEqual(annotations, observed.metadata.annotations ?? {})) changed.push('annotations');
  const fields = new Set([...Object.keys(desired), ...Object.keys(observed)]);
  for (const field of [...fields].sort()) {
    if (NOT_CONTENT.has(field)) continue;
    const same =
      field === 'spec'
        ? desired.spec === undefined || isSubset(desired.spec, observed.spec)
        : jsonEqual(desired[field], observed[field]);
    if (!same) changed.push(field);
  }
  // Keep the host's own metadata (uid, resourceVersion, finalizers, ownerReferences); managedFields
  // is left out, which tells the server to keep its record.
  const { managedFields: _managedFields, ...hostMetadata } = observed.metadata;
  const metadata: ObjectMeta = { ...hostMetadata, labels, annotations };
  const body: KubeObject = { apiVersion: desired.apiVersion, kind: desired.kind, metadata };
  for (const [field, value] of Object.entries(desired)) {
    if (!NOT_CONTENT.has(field)) body[field] = structuredClone(value);
  }
  restoreHostOwnedFields(body, observed);
  return { body, changed };
}

function skipReason(desired: KubeObject, p: Provenance): string {
  return `host name ${desired.metadata.namespace}/${desired.metadata.name} is occupied by ${describeOccupant(p)}; left it untouched`;
}

/**
 * Plans one object against what the host has at its name (`undefined`: nothing). Refuses (Skip)
 * whenever the existing object is not this source's copy.
 */
export function planApply(
  desired: KubeObject,
  observed: KubeObject | undefined,
  source: SourceIdentity,
): ApplyPlan {
  if (!observed) return { action: 'Create' };
  const p = provenance(observed, source);
  if (p.kind !== 'same-source') return { action: 'Skip', reason: skipReason(desired, p) };
  const { body, changed } = updateBody(desired, observed);
  return changed.length === 0 ? { action: 'InSync' } : { action: 'Update', body, changed };
}

/** What applying one object did. */
export interface ApplyOutcome {
  /** `InSync`: nothing to do. `Deferred`: a needed write was refused by the write budget. */
  action: 'Create' | 'Update' | 'Skip' | 'InSync' | 'Deferred';
  reason: string;
  /** The failed write's error; the decision stands, the write did not happen. */
  error?: unknown;
}

/** Dependencies of {@link applyObject}. */
export interface ApplyContext {
  hostApi: ClusterApi;
  dryRun: boolean;
  /** Asks the pass for one more write; false when the write budget is spent. */
  reserveWrite: () => boolean;
}

function describeSource(source: SourceIdentity): string {
  return `${source.kind} ${source.virtualNamespace}/${source.virtualName}`;
}

function updateReason(changed: readonly string[]): string {
  return `host copy differs from the tenant source in ${changed.join(', ')}`;
}

async function performUpdate(
  ctx: ApplyContext,
  body: KubeObject,
  changed: readonly string[],
): Promise<ApplyOutcome> {
  const reason = updateReason(changed);
  // A dry run spends the write budget too, so it stops where the real pass would.
  if (!ctx.reserveWrite()) return { action: 'Deferred', reason: 'write budget spent' };
  if (ctx.dryRun) return { action: 'Update', reason };
  try {
    await ctx.hostApi.update(body);
    return { action: 'Update', reason };
  } catch (error) {
    return { action: 'Update', reason, error };
  }
}

/** The outcome of a plan that needs no create: in sync, a Skip, or an update; else undefined. */
function settle(
  ctx: ApplyContext,
  plan: ApplyPlan,
): Promise<ApplyOutcome> | ApplyOutcome | undefined {
  switch (plan.action) {
    case 'InSync':
      return { action: 'InSync', reason: 'host copy matches the tenant source' };
    case 'Skip':
      return { action: 'Skip', reason: plan.reason };
    case 'Update':
      return performUpdate(ctx, plan.body, plan.changed);
    case 'Create':
      return undefined;
  }
}

/**
 * Applies one desired object, given what the host listing of ALL objects of the kind in the host
 * namespace showed at its name (`undefined`: nothing there). An occupied name is decided from the
 * listing without any request (a persistent Skip costs nothing). Creation is create-only; when the
 * create meets an object that appeared after the listing (a race), the object is re-read and its
 * provenance decides: a same-source copy is updated if needed, anything else is a Skip that names
 * the occupant. A dry run trusts the listing and makes no request at all.
 * Every write first asks `ctx.reserveWrite()`; a refusal returns `Deferred` without writing.
 */
export async function applyObject(
  ctx: ApplyContext,
  desired: KubeObject,
  observed: KubeObject | undefined,
  source: SourceIdentity,
): Promise<ApplyOutcome> {
  const decided = settle(ctx, planApply(desired, observed, source));
  if (decided) return decided;
  const createReason = `no host copy of tenant ${describeSource(source)} yet`;
  const { namespace, name } = desired.metadata;
  // A dry run spends the write budget too, so it stops where the real pass would.
  if (!ctx.reserveWrite()) return { action: 'Deferred', reason: 'write budget spent' };
  if (ctx.dryRun) return { action: 'Create', reason: createReason };
  try {
    await ctx.hostApi.create(desired);
    return { action: 'Create', reason: createReason };
  } catch (error) {
    if (!isClusterError(error, 'AlreadyExists')) {
      return { action: 'Create', reason: createReason, error };
    }
  }
  // The race fallback: the name was taken after the listing.
  const existing = await ctx.hostApi.get(desired, namespace, name);
  // Gone again between the create and the read: the next pass creates it.
  if (!existing) {
    return {
      action: 'Create',
      reason: createReason,
      error: new Error('the host name was taken and released again during the create'),
    };
  }
  return (
    settle(ctx, planApply(desired, existing, source)) ?? { action: 'Create', reason: createReason }
  );
}
