/**
 * The host side as a pass holds it: every host object of a kind is kept until GC, so each is kept
 * as what apply and GC need. Metadata stays whole (names, uid, resourceVersion, timestamps, labels,
 * annotations: provenance, reverse mapping, preconditions, the write record); `managedFields` and
 * `status` are dropped (but for kinds whose small status comes back to the tenant); a content
 * field larger than {@link INLINE_FIELD_BYTES} (a ConfigMap's `data`, a large spec) is held as a
 * digest only. So what a pass holds grows with the number of
 * objects, not with their size. Pods are the exception: spec and status are held whole (a Pod
 * is bounded in size, its update needs the host's spec, its status goes back to the tenant).
 *
 * Apply compares a desired object with the held view: an elided field whose digest equals the
 * desired field's is the same content (the desired value stands in for it, so drift and the
 * write record decide exactly as on the whole object, without a request); when a digest differs
 * the copy needs a write anyway, and its whole object is read first (one GET) so the update body
 * keeps what the host owns. A dry run makes no request: it plans from the view.
 */
import { createHash } from 'node:crypto';
import { JsonDepthError, MAX_JSON_DEPTH, stableJson } from '../../common/index.js';
import type { ClusterApi, KubeObject } from '../../ports/index.js';
import { NON_CONTENT_FIELDS } from '../object/transform.js';

/** A content field whose JSON is larger than this is held as a digest. */
export const INLINE_FIELD_BYTES = 4096;

/** Digests of the fields elided from a held view, by field. */
const elided = new WeakMap<KubeObject, ReadonlyMap<string, string>>();

function digest(json: string): string {
  return createHash('sha256').update(json, 'utf8').digest('hex');
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control chars, surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes are the point
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * An upper bound of `stableJson(value).length` without printing it (every listed host object is
 * weighed, nearly all far below {@link INLINE_FIELD_BYTES}): exact unless a string needs escaping
 * (then each of its characters counts as a 6-character escape). Infinite for anything but plain
 * JSON, so the caller prints it. Stops adding up once past `limit`, and descends no deeper than
 * {@link MAX_JSON_DEPTH} (a foreign host object may nest without bound).
 */
function jsonLengthBound(value: unknown, limit: number, depth = 0): number {
  if (depth > MAX_JSON_DEPTH) return Number.POSITIVE_INFINITY;
  if (typeof value === 'string') return (ESCAPED.test(value) ? 6 : 1) * value.length + 2;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null) return 4;
  let length = 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && length <= limit; i += 1) {
      if (!(i in value)) return Number.POSITIVE_INFINITY;
      length += jsonLengthBound(value[i], limit, depth + 1) + 1;
    }
    return Math.max(length, 2);
  }
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto !== Object.prototype && proto !== null) return Number.POSITIVE_INFINITY;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (member === undefined) continue;
    length += jsonLengthBound(key, limit) + 1 + jsonLengthBound(member, limit, depth + 1) + 1;
    if (length > limit) return length;
  }
  return Math.max(length, 2);
}

/**
 * What a pass keeps of a listed host object, as its kind says (`kinds/registry.ts`):
 * - `compact`: without `metadata.managedFields` and `status`, large content fields replaced by
 *   their digests ({@link elidedFields});
 * - `status`: the same, with `status` kept (a kind whose status comes back to the tenant);
 * - `whole`: with `status` and every content field kept (a kind whose update is built from the
 *   host's spec, whose host-owned fields never equal a desired digest: a Pod).
 */
export type HostView = 'compact' | 'status' | 'whole';

/** The view of a listed host object that a pass holds ({@link HostView}); never mutated. */
export function compactHostObject(object: KubeObject, keep: HostView = 'compact'): KubeObject {
  // One copy of the object and one of its metadata: a pass compacts every host object it lists.
  const { status, metadata, ...rest } = object;
  const view = rest as KubeObject;
  view.metadata = metadata;
  if (!metadata || typeof metadata !== 'object') return view;
  const { managedFields: _managedFields, ...kept } = metadata;
  view.metadata = kept;
  if (status !== undefined && keep !== 'compact') view.status = status;
  if (keep === 'whole') return view;
  let digests: Map<string, string> | undefined;
  for (const field of Object.keys(view)) {
    const value = view[field];
    if (NON_CONTENT_FIELDS.has(field) || value === null || typeof value !== 'object') continue;
    if (jsonLengthBound(value, INLINE_FIELD_BYTES) <= INLINE_FIELD_BYTES) continue;
    const json = printed(value);
    if (json === undefined) continue; // too deep to print: held whole, compared as it is
    if (json.length <= INLINE_FIELD_BYTES) continue;
    digests ??= new Map();
    digests.set(field, digest(json));
    delete view[field];
  }
  if (digests) elided.set(view, digests);
  return view;
}

/** `stableJson(value)`, or undefined for a value nested too deeply to print. */
function printed(value: unknown): string | undefined {
  try {
    return stableJson(value);
  } catch (error) {
    if (error instanceof JsonDepthError) return undefined;
    throw error;
  }
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
