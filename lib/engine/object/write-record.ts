/**
 * Writes that stick once: what the engine records on a host copy when it writes it, so a later
 * pass can tell "the host normalised what I wrote" (a pruning CRD schema, a defaulted field, a
 * mutating admission policy) from "someone changed my copy".
 *
 * Two annotations, both written only by the engine (they are reserved keys):
 * - `applied-hash`: digest of the desired object the write came from. It changes exactly when the
 *   tenant source (or the transform) changes what the engine wants.
 * - `stored-hash`: digest of the copy's content as the host stored it, recorded by an update that
 *   found the copy already made from the same desired object. When the host rewrites part of
 *   every write, the copy can never equal the desired object; this says the difference is the
 *   host's own doing.
 *
 * A copy is in sync when nothing the engine owns differs from the desired object (drift), or when
 * it was made from the same desired object and its content still has the recorded stored digest.
 * Any later edit by someone else (a changed, added or removed key) changes that digest, so the next
 * pass repairs it. A host that rewrites a field therefore costs one extra update, once: the update
 * that records the stored digest. managedFields is not needed (and a pure removal by another
 * client leaves no trace there anyway).
 */
import { cloneJson, isRecord, jsonDigest } from '../../common/index.js';
import type { KubeObject } from '../../ports/index.js';
import { Annotations } from '../names/metadata.js';
import { bodyFor, type Drift, driftOf } from './drift.js';
import { GENERIC_WRITES, type WriteTraits } from './kind-traits.js';
import { NON_CONTENT_FIELDS } from './transform.js';

/** The annotations of this module; the drift comparison leaves them out. */
const RECORD_KEYS: readonly string[] = [
  Annotations.AppliedHash,
  Annotations.StoredHash,
  Annotations.ImmutableHash,
];

/** The immutable-part digest of `desired`, for kinds whose updates name immutable changes. */
function immutableRecord(desired: KubeObject, traits: WriteTraits): Record<string, string> {
  const digest = traits.immutableDigest?.(desired);
  return digest === undefined ? {} : { [Annotations.ImmutableHash]: digest };
}

function withoutRecordKeys(map: Record<string, string> | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  const from = map ?? {};
  for (const key of Object.keys(from)) {
    if (!RECORD_KEYS.includes(key)) kept[key] = from[key] as string;
  }
  return kept;
}

/** The content fields of an object (everything but identity, metadata and status). */
function contentFields(object: KubeObject): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object)) {
    if (!NON_CONTENT_FIELDS.has(field)) content[field] = value;
  }
  return content;
}

/**
 * Digest of a desired host object: its labels, annotations (the record keys aside) and content.
 * Equal digests mean the engine wants exactly the same object.
 */
export function desiredHash(desired: KubeObject): string {
  return jsonDigest({
    labels: desired.metadata.labels ?? {},
    annotations: withoutRecordKeys(desired.metadata.annotations),
    content: contentFields(desired),
  });
}

function pick(map: Record<string, string> | undefined, keys: readonly string[]) {
  const picked: Record<string, string> = {};
  for (const key of keys) {
    const value = map?.[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

/**
 * Digest of what the engine owns on a host copy, as the host stores it: the label and annotation
 * keys the desired object sets (keys host controllers add do not count) and every content field.
 */
export function storedHash(copy: KubeObject, desired: KubeObject): string {
  const annotationKeys = Object.keys(withoutRecordKeys(desired.metadata.annotations));
  return jsonDigest({
    labels: pick(copy.metadata.labels, Object.keys(desired.metadata.labels ?? {})),
    annotations: pick(copy.metadata.annotations, annotationKeys),
    content: contentFields(copy),
  });
}

/** A copy of `object` whose annotations carry `record` (a key set to undefined is removed). */
function withRecord(object: KubeObject, record: Record<string, string | undefined>): KubeObject {
  const annotations = withoutRecordKeys(object.metadata.annotations);
  for (const [key, value] of Object.entries(record))
    if (value !== undefined) annotations[key] = value;
  return { ...object, metadata: { ...object.metadata, annotations } };
}

/** The body of a create: the desired object with its applied digest. */
export function createBody(desired: KubeObject, traits: WriteTraits = GENERIC_WRITES): KubeObject {
  return withRecord(desired, {
    [Annotations.AppliedHash]: desiredHash(desired),
    ...immutableRecord(desired, traits),
  });
}

/** What an existing same-source copy needs. */
export type UpdatePlan =
  | { action: 'InSync'; normalised: boolean }
  | {
      action: 'Update';
      body: KubeObject;
      changed: string[];
      sameDesired: boolean;
      /** The in-place resize to make first (a Pod's resources), when they changed. */
      resize?: KubeObject;
    }
  | {
      /** The tenant changed what the host cannot change on this copy: only recreating can. */
      action: 'Immutable';
      fields: string[];
      reason: string;
    };

/** A translator's body with the engine's merged labels and annotations (managedFields left out). */
function withMetadataOf(body: KubeObject, drift: Drift): KubeObject {
  const { managedFields: _managedFields, ...metadata } = body.metadata;
  return {
    ...body,
    metadata: { ...metadata, labels: drift.labels, annotations: drift.annotations },
  };
}

/**
 * Whether a difference the host cannot take is the host's own doing (a webhook's sidecar, a
 * default), not the tenant's: the immutable part of the desired object is the one last written
 * (its recorded digest), or, on a copy written before that digest, the whole desired object is.
 */
function hostsOwnDifference(
  desired: KubeObject,
  recorded: Record<string, string>,
  traits: WriteTraits,
): boolean {
  const immutable = recorded[Annotations.ImmutableHash];
  if (immutable !== undefined)
    return immutableRecord(desired, traits)[Annotations.ImmutableHash] === immutable;
  return recorded[Annotations.AppliedHash] === desiredHash(desired);
}

/**
 * Plans the update of a same-source copy: in sync when nothing the engine owns differs, or when
 * the difference is the host's recorded rewrite of this very desired object (`normalised`);
 * otherwise an update whose body records the applied digest and, when the copy was already made
 * from this desired object, the digest of its content as stored (so the host's rewrite of this
 * update is recognised next time).
 */
export function planUpdate(
  desired: KubeObject,
  observed: KubeObject,
  traits: WriteTraits = GENERIC_WRITES,
): UpdatePlan {
  const plain = withRecord(observed, {});
  // What differs first: a copy in sync (a steady pass's every copy) needs no update body.
  const drift = driftOf(desired, plain, traits.updateBody !== undefined);
  // A kind the host lets change only in part (a Pod): only what may change counts, and the body
  // is the host's copy with just that overwritten.
  const translated = traits.updateBody?.(desired, plain);
  const recorded = observed.metadata.annotations ?? {};
  if (translated?.immutable && !hostsOwnDifference(desired, recorded, traits)) {
    return { action: 'Immutable', ...translated.immutable };
  }
  const changed = translated
    ? [...drift.changed.filter((f) => f === 'labels' || f === 'annotations'), ...translated.changed]
    : drift.changed;
  if (changed.length === 0) return { action: 'InSync', normalised: false };
  const body = translated
    ? withMetadataOf(translated.body, drift)
    : bodyFor(desired, plain, drift, traits.hostOwned);
  const applied = desiredHash(desired);
  const sameDesired = recorded[Annotations.AppliedHash] === applied;
  const stored = storedHash(observed, desired);
  if (sameDesired && recorded[Annotations.StoredHash] === stored) {
    return { action: 'InSync', normalised: true };
  }
  const record = {
    [Annotations.AppliedHash]: applied,
    [Annotations.StoredHash]: sameDesired ? stored : undefined,
    ...immutableRecord(desired, traits),
  };
  const plan = { action: 'Update' as const, body: withRecord(body, record), changed, sameDesired };
  return translated?.resize ? { ...plan, resize: translated.resize } : plan;
}

/**
 * The update that only records how the host stored this very desired object, when the host
 * refuses to change `fields` of it (immutable): those fields are sent as the host has them, so the
 * update is accepted and changes nothing but the record. Top-level and dotted paths; a path
 * through a list is left as it is.
 */
export function recordOnly(
  plan: Extract<UpdatePlan, { action: 'Update' }>,
  observed: KubeObject,
  fields: readonly string[],
): KubeObject {
  const body = cloneJson(plan.body);
  for (const field of fields) {
    const path = field.split('.');
    let from: unknown = observed;
    let to: Record<string, unknown> = body;
    for (const [i, key] of path.entries()) {
      if (!isRecord(from)) break;
      const value = from[key];
      if (i === path.length - 1) {
        if (value === undefined) delete to[key];
        else to[key] = cloneJson(value);
      } else if (isRecord(to[key])) {
        to = to[key] as Record<string, unknown>;
        from = value;
      } else break;
    }
  }
  return body;
}
