/**
 * The host side as a pass holds it: every host object of a kind is kept until GC, so each is kept
 * as what apply and GC need. Metadata stays whole (names, uid, resourceVersion, timestamps, labels,
 * annotations: provenance, reverse mapping, preconditions, the write record); `managedFields` and
 * `status` are dropped; a content field larger than {@link INLINE_FIELD_BYTES} (a ConfigMap's
 * `data`, a large spec) is held as a digest only. So what a pass holds grows with the number of
 * objects, not with their size.
 *
 * Apply compares a desired object with the held view: an elided field whose digest equals the
 * desired field's is the same content (the desired value stands in for it, so drift and the
 * write record decide exactly as on the whole object, without a request); when a digest differs
 * the copy needs a write anyway, and its whole object is read first (one GET) so the update body
 * keeps what the host owns. A dry run makes no request: it plans from the view.
 */
import { createHash } from 'node:crypto';
import { stableJson } from '../common/index.js';
import type { ClusterApi, KubeObject } from '../ports/index.js';
import { NON_CONTENT_FIELDS } from './transform.js';

/** A content field whose JSON is larger than this is held as a digest. */
export const INLINE_FIELD_BYTES = 4096;

/** Digests of the fields elided from a held view, by field. */
const elided = new WeakMap<KubeObject, ReadonlyMap<string, string>>();

function digest(json: string): string {
  return createHash('sha256').update(json, 'utf8').digest('hex');
}

/**
 * The view of a listed host object that a pass holds: without `metadata.managedFields` and
 * `status`, large content fields replaced by their digests ({@link elidedFields}). The listed
 * object is not mutated.
 */
export function compactHostObject(object: KubeObject): KubeObject {
  const { status: _status, metadata, ...rest } = object;
  if (!metadata || typeof metadata !== 'object') return { ...rest, metadata } as KubeObject;
  const { managedFields: _managedFields, ...kept } = metadata;
  const view: KubeObject = { ...rest, metadata: kept };
  let digests: Map<string, string> | undefined;
  for (const [field, value] of Object.entries(rest)) {
    if (NON_CONTENT_FIELDS.has(field) || value === null || typeof value !== 'object') continue;
    const json = stableJson(value);
    if (json.length <= INLINE_FIELD_BYTES) continue;
    digests ??= new Map();
    digests.set(field, digest(json));
    delete view[field];
  }
  if (digests) elided.set(view, digests);
  return view;
}

/** The fields held as digests (field -> digest); empty for a whole object. */
export function elidedFields(view: KubeObject): ReadonlyMap<string, string> {
  return elided.get(view) ?? new Map();
}

/** Stands in for an elided field whose content differs from the desired one. */
const DIFFERS = 'tenantplane.io/elided-content';

/**
 * What the host holds, as far as the view tells it, compared with `desired`: elided fields equal
 * to the desired ones are filled in with the desired values; one that differs is a marker that
 * equals nothing (`complete: false`: the whole object is needed to write). No request.
 */
export function observedView(
  desired: KubeObject,
  view: KubeObject | undefined,
): { observed: KubeObject | undefined; complete: boolean } {
  const digests = view ? elided.get(view) : undefined;
  if (!view || !digests) return { observed: view, complete: true };
  const observed: KubeObject = { ...view };
  let complete = true;
  for (const [field, fieldDigest] of digests) {
    const wanted = desired[field];
    if (wanted !== undefined && digest(stableJson(wanted)) === fieldDigest) {
      observed[field] = wanted;
    } else {
      observed[field] = { [DIFFERS]: fieldDigest };
      complete = false;
    }
  }
  return { observed, complete };
}

/**
 * The host object to apply `desired` against: the view when it tells everything apply needs,
 * otherwise (a large field differs, so there is a write to make) the whole object, read with one
 * GET (`undefined` when it is gone meanwhile: create-only creation then decides). A dry run reads
 * nothing and plans from the view.
 */
export async function observedForApply(
  hostApi: ClusterApi,
  desired: KubeObject,
  view: KubeObject | undefined,
  dryRun: boolean,
): Promise<KubeObject | undefined> {
  const { observed, complete } = observedView(desired, view);
  if (complete || dryRun || !view) return observed;
  return hostApi.get(desired, view.metadata.namespace, view.metadata.name);
}
