/**
 * The owned-keys annotation, and the room the engine's own annotations take on a host copy.
 *
 * The annotation lists the tenant label and annotation keys the engine carried over, so a later
 * update removes the ones the tenant removed while keeping keys host controllers add. Listed in
 * full it grows with the tenant's keys: about 4,200 long label keys (labels have no total size
 * limit) made it larger than the host's 256 KiB limit on all annotations of an object, and the
 * host refused a valid tenant object for good. So the list is bounded: a side whose list would be
 * larger than {@link OWNED_KEYS_LIST_BYTES} is recorded as `"*"` (every key of that side on the
 * copy is the engine's: an update then keeps no key a host controller added there), and when the
 * tenant's annotations leave no room for the list at all, both sides are `"*"`. What is left of
 * the engine's annotations is a few hundred bytes of fixed size; a tenant object whose own
 * annotations leave no room even for those is that object's error, before any write.
 */
import { isRecord } from '../../common/index.js';
import type { KubeObject } from '../../ports/index.js';
import { Annotations } from '../names/metadata.js';

/** The tenant-derived label and annotation keys the engine owns on a host object. */
export interface OwnedKeys {
  labels: string[];
  annotations: string[];
}

/** The kube-apiserver's limit on the total size of an object's annotations (keys and values). */
export const ANNOTATIONS_LIMIT_BYTES = 256 * 1024;

/** A side's key list larger than this (as JSON) is recorded as `"*"`. */
export const OWNED_KEYS_LIST_BYTES = 16 * 1024;

/** "Every key of this side on the copy is the engine's." */
const ALL = '*';

/** The applied and stored digests a write adds (16 hex characters each, `write-record.ts`). */
const WRITE_RECORD_BYTES = Annotations.AppliedHash.length + Annotations.StoredHash.length + 32;

/** UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_UTF8_PER_UNIT = 3;

/** At least as many bytes as {@link annotationBytes}, from string lengths alone (no encoding). */
function annotationBytesBound(annotations: Readonly<Record<string, string>>): number {
  let units = 0;
  for (const key of Object.keys(annotations)) units += key.length + (annotations[key]?.length ?? 0);
  return units * MAX_UTF8_PER_UNIT;
}

/** Bytes of a map as the apiserver counts them: every key and value, UTF-8. */
export function annotationBytes(annotations: Readonly<Record<string, string>> | undefined): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    total += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
  }
  return total;
}

/** The owned-keys annotation's text: each side listed, or `"*"` when its list is too large. */
export function ownedKeysText(owned: OwnedKeys, all = false): string {
  if (all) return JSON.stringify({ labels: ALL, annotations: ALL });
  // The objects of a kind repeat a handful of key sets: each text is built once.
  // Valid keys never hold the separators; keys that do are not remembered (no mix-up).
  const plain = (k: string) => !k.includes('\u0000') && !k.includes('\u0001');
  const key =
    owned.labels.every(plain) && owned.annotations.every(plain)
      ? `${owned.labels.join('\u0000')}\u0001${owned.annotations.join('\u0000')}`
      : undefined;
  const known = key === undefined ? undefined : ownedTexts.get(key);
  if (known !== undefined) return known;
  const side = (keys: string[]) => {
    const json = JSON.stringify(keys);
    if (json.length * MAX_UTF8_PER_UNIT <= OWNED_KEYS_LIST_BYTES) return json;
    return Buffer.byteLength(json, 'utf8') > OWNED_KEYS_LIST_BYTES ? JSON.stringify(ALL) : json;
  };
  // As JSON.stringify({ labels, annotations }) prints it, each side printed once.
  const text = `{"labels":${side(owned.labels)},"annotations":${side(owned.annotations)}}`;
  if (key === undefined) return text;
  if (ownedTexts.size >= OWNED_TEXTS_REMEMBERED) ownedTexts.clear();
  ownedTexts.set(key, text);
  return text;
}

/** Texts by key set; bounded, as a tenant may have as many key sets as objects. */
const ownedTexts = new Map<string, string>();
const OWNED_TEXTS_REMEMBERED = 256;

/**
 * Makes the engine's annotations on `desired` fit the host's limit together with the tenant's
 * (in place): the owned-keys annotation shrinks to `"*"` on both sides when the list does not fit.
 * @throws Error naming the sizes when the tenant's annotations leave no room for the engine's.
 */
export function fitAnnotations(desired: KubeObject, owned: OwnedKeys): void {
  const annotations = desired.metadata.annotations ?? {};
  // Nearly every object's annotations are far under the limit: no need to encode them to know.
  if (annotationBytesBound(annotations) + WRITE_RECORD_BYTES <= ANNOTATIONS_LIMIT_BYTES) return;
  const fits = () => annotationBytes(annotations) + WRITE_RECORD_BYTES <= ANNOTATIONS_LIMIT_BYTES;
  if (fits()) return;
  annotations[Annotations.OwnedKeys] = ownedKeysText(owned, true);
  if (fits()) return;
  const tenant = new Set(owned.annotations);
  const tenantBytes = annotationBytes(
    Object.fromEntries(Object.entries(annotations).filter(([key]) => tenant.has(key))),
  );
  const engineBytes = annotationBytes(annotations) - tenantBytes + WRITE_RECORD_BYTES;
  throw new Error(
    `its annotations take ${tenantBytes} bytes, which leaves no room under the host's limit of ${ANNOTATIONS_LIMIT_BYTES} bytes for the engine's own (reverse mapping and write record, ${engineBytes} bytes); remove some of its annotations to sync it`,
  );
}

/**
 * Reads the owned-keys annotation of a host copy; a missing or garbled one owns nothing (safe:
 * keeps keys); a side recorded as `"*"` owns every key of that side on the copy.
 */
export function ownedKeysOf(hostObject: KubeObject): OwnedKeys {
  const text = hostObject.metadata.annotations?.[Annotations.OwnedKeys];
  if (!text) return { labels: [], annotations: [] };
  try {
    const parsed: unknown = JSON.parse(text);
    const list = (v: unknown, map: Record<string, string> | undefined) => {
      if (v === ALL) return Object.keys(map ?? {});
      return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
    };
    const { labels, annotations } = hostObject.metadata;
    return isRecord(parsed)
      ? { labels: list(parsed.labels, labels), annotations: list(parsed.annotations, annotations) }
      : { labels: [], annotations: [] };
  } catch {
    return { labels: [], annotations: [] };
  }
}

/** Whether the owned-keys text depends on the copy it is on (a side recorded as `"*"`). */
export function ownsAllOfASide(text: string): boolean {
  return text.includes(`"${ALL}"`);
}
