/**
 * A host class as the tenant sees it: the read-only copy (same name, the host's content, labels
 * and annotations, plus the engine's marks) and what an existing tenant class needs to become it.
 * Pure: no cluster access.
 *
 * Writes stick once, as for host copies (`object/write-record.ts`): a copy records the digest of
 * what it was written from (`applied-hash`); a tenant apiserver that stores it otherwise (version
 * skew, defaulting) costs one more update, which records the digest of the copy as stored
 * (`stored-hash`), and from then on the copy is in sync while its host class stays as it is.
 */
import { cloneJson, isRecord, jsonDigest, jsonEqual } from '../../common/index.js';
import type { KindRef, KubeObject } from '../../ports/index.js';
import {
  Annotations,
  DROPPED_TENANT_ANNOTATIONS,
  FROM_HOST_VALUE,
  HostClassKeys,
  isReservedKey,
  Labels,
  MANAGED_BY_VALUE,
} from '../names/metadata.js';

/** What is not content: identity, metadata and status. Every other top-level field is copied. */
const NON_CONTENT: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/** The annotations that record a write; left out of what is compared. */
const RECORD_KEYS: readonly string[] = [Annotations.AppliedHash, Annotations.StoredHash];

/**
 * Fields (dotted paths) the apiserver refuses to change on an existing class: a host class whose
 * value of one changed (it was recreated) is replaced in the tenant, delete then create.
 */
const IMMUTABLE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  StorageClass: ['provisioner', 'parameters', 'reclaimPolicy', 'volumeBindingMode'],
  PriorityClass: ['value', 'preemptionPolicy'],
  RuntimeClass: ['handler'],
  IngressClass: ['spec.controller'],
  GatewayClass: ['spec.controllerName'],
};

function valueAt(object: KubeObject, path: string): unknown {
  let at: unknown = object;
  for (const key of path.split('.')) at = isRecord(at) ? at[key] : undefined;
  return at;
}

function kept(map: Record<string, string> | undefined, drop: (key: string) => boolean) {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) if (!drop(key)) out[key] = value;
  return out;
}

/**
 * The tenant copy of `hostClass` for `tenant`: the rule's apiVersion and kind, the host's name,
 * its labels and annotations without reserved keys (the host class's own `managed-by` included:
 * the copy is the engine's), the engine's marks, and every content field as the host has it.
 */
export function classCopy(hostClass: KubeObject, kind: KindRef, tenant: string): KubeObject {
  const labels = kept(hostClass.metadata.labels, isReservedKey);
  labels[Labels.ManagedBy] = MANAGED_BY_VALUE;
  labels[Labels.Tenant] = tenant;
  labels[HostClassKeys.FromHost] = FROM_HOST_VALUE;
  const annotations = kept(
    hostClass.metadata.annotations,
    (key) => isReservedKey(key) || DROPPED_TENANT_ANNOTATIONS.includes(key),
  );
  const copy: KubeObject = {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name: hostClass.metadata.name, labels, annotations },
  };
  for (const [field, value] of Object.entries(hostClass)) {
    if (!NON_CONTENT.has(field)) copy[field] = cloneJson(value);
  }
  return copy;
}

/** Whether a tenant class is this tenant's copy of a host class (only those are ever written). */
export function isOurClassCopy(object: KubeObject, tenant: string): boolean {
  const labels = object.metadata.labels ?? {};
  return (
    labels[Labels.ManagedBy] === MANAGED_BY_VALUE &&
    labels[Labels.Tenant] === tenant &&
    labels[HostClassKeys.FromHost] === FROM_HOST_VALUE
  );
}

/** What is compared of a class: labels, annotations (the record aside) and content. */
function view(object: KubeObject) {
  const content: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object)) {
    if (!NON_CONTENT.has(field)) content[field] = value;
  }
  return {
    labels: object.metadata.labels ?? {},
    annotations: kept(object.metadata.annotations, (key) => RECORD_KEYS.includes(key)),
    content,
  };
}

/** The differing parts of two views, as `labels`, `annotations` and top-level field names. */
function changedParts(desired: KubeObject, observed: KubeObject): string[] {
  const a = view(desired);
  const b = view(observed);
  const changed: string[] = [];
  if (!jsonEqual(a.labels, b.labels)) changed.push('labels');
  if (!jsonEqual(a.annotations, b.annotations)) changed.push('annotations');
  const fields = new Set([...Object.keys(a.content), ...Object.keys(b.content)]);
  for (const field of [...fields].sort()) {
    if (!jsonEqual(a.content[field], b.content[field])) changed.push(field);
  }
  return changed;
}

function withRecord(object: KubeObject, record: Record<string, string | undefined>): KubeObject {
  const annotations = kept(object.metadata.annotations, (key) => RECORD_KEYS.includes(key));
  for (const [key, value] of Object.entries(record))
    if (value !== undefined) annotations[key] = value;
  return { ...object, metadata: { ...object.metadata, annotations } };
}

/** What one selected host class needs in the tenant. */
export type ClassPlan =
  | { action: 'InSync' }
  | { action: 'Create'; body: KubeObject }
  /** `sameDesired`: the host class did not change, the copy differs (tenant edit or rewrite). */
  | { action: 'Update'; body: KubeObject; changed: string[]; sameDesired: boolean }
  /** An immutable field changed: delete the copy (`observed`), then create `body`. */
  | { action: 'Replace'; body: KubeObject; fields: string[]; observed: KubeObject }
  /** The tenant's own class holds the name: never touched. */
  | { action: 'Foreign' };

/**
 * Plans the tenant side of one selected host class: `desired` is its {@link classCopy},
 * `observed` the tenant class of that name, if any.
 */
export function planClassCopy(
  desired: KubeObject,
  observed: KubeObject | undefined,
  tenant: string,
): ClassPlan {
  const applied = jsonDigest(view(desired));
  if (!observed)
    return { action: 'Create', body: withRecord(desired, { [Annotations.AppliedHash]: applied }) };
  if (!isOurClassCopy(observed, tenant)) return { action: 'Foreign' };
  const changed = changedParts(desired, observed);
  if (changed.length === 0) return { action: 'InSync' };
  const recorded = observed.metadata.annotations ?? {};
  const sameDesired = recorded[Annotations.AppliedHash] === applied;
  const stored = jsonDigest(view(observed));
  if (sameDesired && recorded[Annotations.StoredHash] === stored) return { action: 'InSync' };
  const immutable = IMMUTABLE_FIELDS[desired.kind] ?? [];
  const fields = immutable.filter((f) => !jsonEqual(valueAt(desired, f), valueAt(observed, f)));
  const body = cloneJson(
    withRecord(desired, {
      [Annotations.AppliedHash]: applied,
      [Annotations.StoredHash]: sameDesired ? stored : undefined,
    }),
  );
  if (fields.length > 0 && !sameDesired) {
    return {
      action: 'Replace',
      body: withRecord(desired, { [Annotations.AppliedHash]: applied }),
      fields,
      observed,
    };
  }
  // The same host class, stored otherwise: the immutable fields are sent as the tenant has them,
  // so the update (which only records that) is accepted.
  for (const field of fields) setAt(body, field, valueAt(observed, field));
  body.metadata.resourceVersion = observed.metadata.resourceVersion;
  return { action: 'Update', body, changed, sameDesired };
}

function setAt(object: KubeObject, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: Record<string, unknown> = object;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    if (!isRecord(next)) return;
    at = next;
  }
  const last = keys.at(-1) as string;
  if (value === undefined) delete at[last];
  else at[last] = cloneJson(value);
}
