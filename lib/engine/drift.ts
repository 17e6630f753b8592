/**
 * Drift: what differs between the desired host object and the host's copy, and the update body
 * that converges the copy without taking away what the host owns (its metadata, host-owned
 * fields, label and annotation keys host controllers added).
 */
import { isRecord, jsonEqual } from '../common/index.js';
import type { KubeObject, ObjectMeta } from '../ports/index.js';
import { isReservedKey } from './metadata.js';
import { NON_CONTENT_FIELDS, ownedKeysOf, restoreHostOwnedFields } from './transform.js';

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
    if (NON_CONTENT_FIELDS.has(field)) continue;
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
    if (!NON_CONTENT_FIELDS.has(field)) body[field] = structuredClone(value);
  }
  restoreHostOwnedFields(body, observed);
  return { body, changed };
}
