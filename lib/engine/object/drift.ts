/**
 * Drift: what differs between the desired host object and the host's copy, and the update body
 * that converges the copy without taking away what the host owns (its metadata, host-owned
 * fields, label and annotation keys host controllers added).
 */
import { cloneJson, isRecord, jsonEqual } from '../../common/index.js';
import type { KubeObject, ObjectMeta } from '../../ports/index.js';
import { Annotations, isReservedKey } from '../names/metadata.js';
import type { HostOwnedFields } from './kind-traits.js';
import { ownedKeysOf, ownsAllOfASide } from './owned-keys.js';
import { NON_CONTENT_FIELDS } from './transform.js';

/**
 * True when every field of `desired` is present in `observed` with the same value; arrays must
 * have equal length with each element a subset. Extra fields in `observed` are server defaults
 * (a Service's `sessionAffinity`, a Pod's `dnsPolicy`) and do not count as drift.
 */
export function isSubset(desired: unknown, observed: unknown): boolean {
  // Loops, not entries().every(): every copy of every pass goes through here.
  if (Array.isArray(desired)) {
    if (!Array.isArray(observed) || desired.length !== observed.length) return false;
    for (let i = 0; i < desired.length; i += 1) {
      if (!isSubset(desired[i], observed[i])) return false;
    }
    return true;
  }
  if (isRecord(desired)) {
    if (!isRecord(observed)) return false;
    for (const key of Object.keys(desired)) {
      const value = desired[key];
      if (value !== undefined && !isSubset(value, observed[key])) return false;
    }
    return true;
  }
  return desired === observed;
}

/**
 * Merges a label or annotation map: keys the engine owned before (`dropped`) or reserves are
 * dropped from the host's copy, then the desired keys are set. So a key the tenant removed
 * disappears, and a key a host controller added survives.
 */
function mergeDropping(
  observed: Record<string, string> | undefined,
  desired: Record<string, string> | undefined,
  dropped: ReadonlySet<string>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  const kept = observed ?? {};
  for (const key of Object.keys(kept)) {
    if (dropped.has(key) || isReservedKey(key)) continue;
    merged[key] = kept[key] as string;
  }
  return Object.assign(merged, desired ?? {});
}

/** {@link ownedKeysOf} as sets, by the owned-keys annotation's text. */
type OwnedSets = { labels: ReadonlySet<string>; annotations: ReadonlySet<string> };
const ownedSets = new Map<string, OwnedSets>();
/** Copies of one tenant's objects repeat a handful of owned-keys texts; a bound all the same. */
const OWNED_SETS_REMEMBERED = 256;

/** The keys the engine owned on `observed`, parsed once per distinct annotation text. */
function ownedOf(observed: KubeObject): OwnedSets {
  const text = observed.metadata.annotations?.[Annotations.OwnedKeys];
  const remembered = typeof text === 'string' ? ownedSets.get(text) : undefined;
  if (remembered) return remembered;
  const owned = ownedKeysOf(observed);
  const sets = { labels: new Set(owned.labels), annotations: new Set(owned.annotations) };
  // A side recorded as "*" owns the keys of this very copy: not shared by the text alone.
  if (typeof text === 'string' && !ownsAllOfASide(text)) {
    if (ownedSets.size >= OWNED_SETS_REMEMBERED) ownedSets.clear();
    ownedSets.set(text, sets);
  }
  return sets;
}

/** Every top-level field of either object, sorted. */
function fieldsOf(desired: KubeObject, observed: KubeObject): string[] {
  const fields = Object.keys(desired);
  for (const field of Object.keys(observed)) if (!fields.includes(field)) fields.push(field);
  return fields.sort();
}

/** What differs between a desired object and a same-source copy, and the merged key maps. */
export interface Drift {
  /** Field names that differ (never values); empty when in sync. */
  changed: string[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/**
 * What differs between `desired` and the same-source copy `observed` (field names only, never
 * values: Secret data must not leak into reasons). Builds no update body: a steady pass finds
 * nearly every copy in sync, and {@link bodyFor} is needed only when something differs.
 * `metadataOnly`: labels and annotations alone (a kind whose content its translator compares).
 */
export function driftOf(desired: KubeObject, observed: KubeObject, metadataOnly = false): Drift {
  const owned = ownedOf(observed);
  const labels = mergeDropping(observed.metadata.labels, desired.metadata.labels, owned.labels);
  const annotations = mergeDropping(
    observed.metadata.annotations,
    desired.metadata.annotations,
    owned.annotations,
  );
  const changed: string[] = [];
  if (!jsonEqual(labels, observed.metadata.labels ?? {})) changed.push('labels');
  if (!jsonEqual(annotations, observed.metadata.annotations ?? {})) changed.push('annotations');
  if (metadataOnly) return { changed, labels, annotations };
  for (const field of fieldsOf(desired, observed)) {
    if (NON_CONTENT_FIELDS.has(field)) continue;
    const same =
      field === 'spec'
        ? desired.spec === undefined || isSubset(desired.spec, observed.spec)
        : jsonEqual(desired[field], observed[field]);
    if (!same) changed.push(field);
  }
  return { changed, labels, annotations };
}

/**
 * The update body that converges `observed` on `desired`, given their {@link driftOf}: the
 * desired content and merged keys on the host's own metadata, the kind's `hostOwned` fields
 * carried over from the host's copy.
 */
export function bodyFor(
  desired: KubeObject,
  observed: KubeObject,
  drift: Drift,
  hostOwned?: HostOwnedFields,
): KubeObject {
  // Keep the host's own metadata (uid, resourceVersion, finalizers, ownerReferences); managedFields
  // is left out, which tells the server to keep its record.
  const { managedFields: _managedFields, ...hostMetadata } = observed.metadata;
  const metadata: ObjectMeta = {
    ...hostMetadata,
    labels: drift.labels,
    annotations: drift.annotations,
  };
  const body: KubeObject = { apiVersion: desired.apiVersion, kind: desired.kind, metadata };
  for (const [field, value] of Object.entries(desired)) {
    if (!NON_CONTENT_FIELDS.has(field)) body[field] = cloneJson(value);
  }
  hostOwned?.restore(body, observed);
  return body;
}
