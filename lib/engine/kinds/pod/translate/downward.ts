/**
 * The downward API of a host Pod reads the tenant Pod's values. A `fieldRef` reads the Pod it is
 * in, and the host Pod has its own name, namespace, uid, service account, labels (the engine's,
 * and tenant labels under reserved keys carried under other keys: `selectors.ts`) and
 * annotations (the engine's). So every `fieldRef` that would read one of those is pointed at
 * where the host Pod holds the tenant's value: an annotation of the engine (identity, and the
 * whole label and annotation maps, kept in the downward API's own file format), or the carried
 * key of a reserved label or annotation.
 *
 * Idempotent: every path this writes is one it leaves as it is, so translating a translated spec
 * changes nothing. The price: a tenant Pod reading one of the engine's own annotation keys (say
 * `tenantplane.io/virtual-name`) reads the engine's value there, not an annotation of its own.
 */
import { isRecord } from '../../../../common/index.js';
import type { KubeObject } from '../../../../ports/index.js';
import { Annotations, DROPPED_TENANT_ANNOTATIONS, isReservedKey } from '../../../names/metadata.js';
import type { KeyExclusions } from '../../../policy/key-exclusions.js';
import { hostLabelKey } from '../../frame/selectors.js';
import { CONTAINER_LISTS } from './references.js';

type Json = Record<string, unknown>;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/**
 * Downward API field paths that would read the host Pod's identity or whole maps, and the
 * annotation of the host Pod that holds the tenant's value instead.
 */
const TENANT_FIELDS: ReadonlyMap<string, string> = new Map([
  ['metadata.name', Annotations.VirtualName],
  ['metadata.namespace', Annotations.VirtualNamespace],
  ['metadata.uid', Annotations.VirtualUid],
  ['spec.serviceAccountName', Annotations.ServiceAccountName],
  ['metadata.labels', Annotations.TenantLabels],
  ['metadata.annotations', Annotations.TenantAnnotations],
]);

/** The annotations {@link TENANT_FIELDS} points at: fixed points of the rewrite. */
const ENGINE_ANNOTATIONS: ReadonlySet<string> = new Set(TENANT_FIELDS.values());

/** `metadata.labels['k']` or `metadata.annotations['k']`, as the Kubernetes API spells them. */
const SUBSCRIPTED = /^metadata\.(labels|annotations)\['(.*)'\]$/;

const ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['\x07', '\\a'],
  ['\b', '\\b'],
  ['\f', '\\f'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
  ['\v', '\\v'],
]);

/** Not printable for Go (`unicode.IsPrint`): controls, format, separators (but the space)... */
const NOT_PRINTABLE = /[\p{C}\p{Z}]/u;

/** `value` quoted as Go's `%q` (`strconv.Quote`) does: what the kubelet writes for a map value. */
export function goQuote(value: string): string {
  let quoted = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    const escaped = ESCAPES.get(ch);
    if (escaped !== undefined) quoted += escaped;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    // A lone surrogate reached the apiserver (Go) as U+FFFD, which is printable.
    else if (code >= 0xd800 && code <= 0xdfff) quoted += '\ufffd';
    else if (ch === ' ' || !NOT_PRINTABLE.test(ch)) quoted += ch;
    else if (code <= 0xffff) quoted += `\\u${code.toString(16).padStart(4, '0')}`;
    else quoted += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${quoted}"`;
}

/**
 * A map in the downward API's file format (the kubelet's `fieldpath.FormatMap`): one
 * `key="value"` line per key, keys sorted, no newline after the last, so the host Pod's file is
 * byte for byte the one the tenant Pod would have.
 */
export function downwardMap(map: Readonly<Record<string, string>>): string {
  return Object.keys(map)
    .sort()
    .map((key) => `${key}=${goQuote(map[key] as string)}`)
    .join('\n');
}

/** The tenant's map without the keys the policy (or the engine: `dropped`) keeps off the host. */
function kept(
  map: Readonly<Record<string, string>> | undefined,
  excluded: ((key: string) => boolean) | undefined,
  dropped: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (!excluded?.(key) && !dropped.includes(key)) out[key] = value;
  }
  return out;
}

/** What the rewrite of one Pod needs, and the annotations it adds to the host Pod. */
interface Rewrite {
  source: KubeObject['metadata'];
  excludeKeys: KeyExclusions | undefined;
  annotations: Record<string, string>;
}

/** The host field path of a tenant field path (and the annotation it needs, into `rewrite`). */
function hostFieldPath(path: string, rewrite: Rewrite): string {
  const { source, excludeKeys, annotations } = rewrite;
  const annotation = TENANT_FIELDS.get(path);
  if (annotation === Annotations.TenantLabels) {
    annotations[annotation] = downwardMap(kept(source.labels, excludeKeys?.labels));
  } else if (annotation === Annotations.TenantAnnotations) {
    // kubectl's last-applied record is dropped from host copies (a second copy of the object).
    const map = kept(source.annotations, excludeKeys?.annotations, DROPPED_TENANT_ANNOTATIONS);
    annotations[annotation] = downwardMap(map);
  }
  if (annotation !== undefined) return `metadata.annotations['${annotation}']`;
  const [, map, key] = SUBSCRIPTED.exec(path) ?? [];
  if (key === undefined || !isReservedKey(key)) return path;
  if (map === 'annotations' && ENGINE_ANNOTATIONS.has(key)) return path;
  // A reserved key's tenant value is carried under the one key function's key: labels by the
  // Pod translator (`carriedLabels`), an annotation here, only when read.
  const carried = hostLabelKey(key);
  if (carried === key) return path;
  if (map === 'annotations') {
    const value = source.annotations?.[key];
    if (value !== undefined && !excludeKeys?.annotations?.(key)) annotations[carried] = value;
  }
  return `metadata.${map}['${carried}']`;
}

function retarget(fieldRef: unknown, rewrite: Rewrite): void {
  if (!isRecord(fieldRef) || typeof fieldRef.fieldPath !== 'string') return;
  fieldRef.fieldPath = hostFieldPath(fieldRef.fieldPath, rewrite);
}

function retargetItems(downward: unknown, rewrite: Rewrite): void {
  if (!isRecord(downward)) return;
  for (const item of records(downward.items)) retarget(item.fieldRef, rewrite);
}

/**
 * Points every downward API `fieldRef` of a host Pod spec (env and volumes, projected ones
 * included; changed in place) that would read the host Pod's identity, labels or annotations at
 * where the host Pod holds the tenant's values, so a container sees `web` in `shop` with its
 * tenant labels. Returns the annotations the host Pod needs for that (the whole maps, carried
 * reserved annotations), `{}` when it reads none. Keys the policy keeps off the host stay off.
 */
export function tenantFieldRefs(
  spec: Json,
  source: KubeObject['metadata'],
  excludeKeys?: KeyExclusions,
): Record<string, string> {
  const rewrite: Rewrite = { source, excludeKeys, annotations: {} };
  for (const list of CONTAINER_LISTS) {
    for (const container of records(spec[list])) {
      for (const env of records(container.env)) {
        if (isRecord(env.valueFrom)) retarget(env.valueFrom.fieldRef, rewrite);
      }
    }
  }
  for (const volume of records(spec.volumes)) {
    retargetItems(volume.downwardAPI, rewrite);
    if (isRecord(volume.projected)) {
      for (const from of records(volume.projected.sources)) {
        retargetItems(from.downwardAPI, rewrite);
      }
    }
  }
  return rewrite.annotations;
}
