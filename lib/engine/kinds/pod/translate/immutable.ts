/**
 * What a tenant Pod changed that its running host copy cannot take. A Pod's spec is immutable
 * but for a few fields (`pod-update.ts` overwrites those; container resources go through
 * `pods/resize`); a change to any other (a command, a volume, an env var) can only land by
 * recreating the Pod. Rather than sending an update the host refuses, pass after pass, the engine
 * names the fields and says so (a Skip): the tenant deletes its Pod to recreate it.
 *
 * The comparison is a subset one, like drift's: fields the host defaulted or added inside an
 * object (`imagePullPolicy`, a volume's `defaultMode`) are not changes. A list must keep its
 * length, so a host webhook that adds a sidecar makes a difference; the digest of what was written
 * ({@link podImmutableDigest}, recorded on the copy: `write-record.ts`) tells it from the
 * tenant's change, and is computed only when the comparison finds one.
 */
import { isRecord, jsonDigest } from '../../../../common/index.js';
import type { KubeObject } from '../../../../ports/index.js';
import { isSubset } from '../../../object/drift.js';
import { CONTAINER_LISTS } from './references.js';

type Json = Record<string, unknown>;

/** Spec fields a running Pod lets change (by update: `pod-update.ts`). */
const MUTABLE_SPEC_FIELDS: ReadonlySet<string> = new Set([
  'activeDeadlineSeconds',
  'tolerations',
  'schedulingGates',
]);

/**
 * The container lists compared container by container: ephemeral containers are not part of the
 * spec an update sends (they have a subresource of their own).
 */
const COMPARED_LISTS = CONTAINER_LISTS.filter((list) => list !== 'ephemeralContainers');

/**
 * Whether a container's resources may change in place (`pods/resize`): regular containers and
 * sidecars (init containers with `restartPolicy: Always`); a plain init container has run already.
 */
export function resizable(list: string, container: Json): boolean {
  return list === 'containers' || container.restartPolicy === 'Always';
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Whether two container lists name the same containers in the same order. */
function sameNames(want: Json[], have: Json[]): boolean {
  if (want.length !== have.length) return false;
  for (let i = 0; i < want.length; i += 1) {
    if (String(want[i]?.name) !== String(have[i]?.name)) return false;
  }
  return true;
}

/** The fields of one container list that changed and may not. */
function containerChanges(list: string, desired: unknown, observed: unknown): string[] {
  const want = records(desired);
  const have = records(observed);
  // Another set or order of containers: the list itself changed.
  if (!sameNames(want, have)) return [`spec.${list}`];
  const changed: string[] = [];
  want.forEach((container, i) => {
    const current = have[i] as Json;
    const inPlace = resizable(list, container);
    for (const field of Object.keys(container)) {
      if (field === 'image' || (field === 'resources' && inPlace)) continue;
      const value = container[field];
      if (value !== undefined && !isSubset(value, current[field])) {
        changed.push(`spec.${list}[${String(container.name)}].${field}`);
      }
    }
  });
  return changed;
}

/**
 * The spec paths (never values) in which `desired` (the host Pod the tenant Pod translates to)
 * differs from `observed` (the host Pod) and a running Pod cannot change: empty when every
 * difference is one an update or a resize can make. Pure.
 */
export function immutablePodChanges(desired: KubeObject, observed: KubeObject): string[] {
  const want = isRecord(desired.spec) ? desired.spec : {};
  const have = isRecord(observed.spec) ? observed.spec : {};
  const changed: string[] = [];
  for (const field of Object.keys(want)) {
    const value = want[field];
    if (MUTABLE_SPEC_FIELDS.has(field) || value === undefined) continue;
    if (field === 'containers' || field === 'initContainers') {
      changed.push(...containerChanges(field, value, have[field]));
    } else if (!isSubset(value, have[field])) changed.push(`spec.${field}`);
  }
  return changed;
}

/**
 * Digest of what of a desired host Pod a running Pod cannot change: its spec without the fields
 * an update or a resize changes. Equal digests: the same immutable part.
 */
export function podImmutableDigest(desired: KubeObject): string {
  const spec: Json = { ...(isRecord(desired.spec) ? desired.spec : {}) };
  for (const field of MUTABLE_SPEC_FIELDS) delete spec[field];
  for (const list of COMPARED_LISTS) {
    if (!Array.isArray(spec[list])) continue;
    spec[list] = records(spec[list]).map((container) => {
      const { image: _image, ...rest } = container;
      if (resizable(list, container)) delete rest.resources;
      return rest;
    });
  }
  return jsonDigest(spec);
}

/** The Decision's reason for a Pod whose change its host copy cannot take. */
export function immutableChangeReason(fields: readonly string[]): string {
  const which = fields.length === 1 ? 'it' : 'them';
  return `the Pod's ${fields.join(', ')} changed; a running Pod cannot change ${which}; delete the tenant Pod to recreate it`;
}
