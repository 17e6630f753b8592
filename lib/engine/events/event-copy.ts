/**
 * A host Event as the tenant sees it: the tenant Event that copies it (about the tenant object,
 * in tenant names), its deterministic name, and the digest that says whether a copy still matches
 * its host Event. Pure: no cluster access.
 */
import { createHash } from 'node:crypto';
import { cloneJson, isRecord, jsonDigest } from '../../common/index.js';
import { EVENT, type KindRef, type KubeObject } from '../../ports/index.js';
import { EVENTS_BACK_KINDS } from '../kinds/registry.js';
import { tenantCopyLabels } from '../names/copy-selector.js';
import { EventBackKeys, FROM_HOST_VALUE, HostClassKeys } from '../names/metadata.js';

/** Event messages are cut to this length (events.k8s.io's `note` limit, checked on create). */
export const MAX_MESSAGE = 1024;

/** A Kubernetes object name (DNS subdomain) is at most this long. */
const MAX_NAME = 253;
const NAME_HASH_LENGTH = 16;

/** `involvedObject` of an Event, as far as it is there. */
export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  fieldPath?: string;
}

/** The `involvedObject` of an Event, only its string fields. */
export function involvedObjectOf(event: KubeObject): InvolvedObject {
  const raw = event.involvedObject;
  if (!isRecord(raw)) return {};
  const out: InvolvedObject = {};
  for (const key of ['apiVersion', 'kind', 'namespace', 'name', 'uid', 'fieldPath'] as const) {
    const value = raw[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

/** The API group of an apiVersion (`''` for the core group). */
function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * The rule of `rules` whose copies `involved` can be: the same Kind in the same API group (the
 * version may differ: a controller may report on another served version).
 */
export function ruleFor(rules: readonly KindRef[], involved: InvolvedObject): KindRef | undefined {
  const { kind, apiVersion } = involved;
  if (!kind || !EVENTS_BACK_KINDS.has(kind)) return undefined;
  return rules.find(
    (r) => r.kind === kind && groupOf(r.apiVersion) === groupOf(apiVersion ?? r.apiVersion),
  );
}

/**
 * The name of the tenant Event that copies host Event `hostEventUid` about tenant object
 * `objectName`: `<name>.<16 hex of SHA-256 of the uid>`, like the recorder's `<name>.<hex>`, so
 * every pass (and a racing one) arrives at the same name, and a second create of it fails.
 */
export function tenantEventName(objectName: string, hostEventUid: string): string {
  const hash = createHash('sha256')
    .update(hostEventUid, 'utf8')
    .digest('hex')
    .slice(0, NAME_HASH_LENGTH);
  const prefix = objectName.slice(0, MAX_NAME - NAME_HASH_LENGTH - 1).replace(/[-.]+$/, '');
  return `${prefix}.${hash}`;
}

/** What of a host Event a tenant copy follows: when its digest changes, the copy is written. */
const FOLLOWED = [
  'type',
  'reason',
  'message',
  'count',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'series',
  'action',
] as const;

/** Copied as they are besides {@link FOLLOWED}: who reported it (a host node keeps its name). */
const CARRIED = ['source', 'reportingComponent', 'reportingInstance'] as const;

/** The digest of what a tenant copy of `hostEvent` follows (recorded on the copy). */
export function hostEventDigest(hostEvent: KubeObject): string {
  const followed: Record<string, unknown> = { uid: hostEvent.metadata.uid ?? '' };
  for (const field of FOLLOWED) followed[field] = hostEvent[field] ?? null;
  return jsonDigest(followed);
}

/** The digest a tenant Event records of its host Event, if it is a copy. */
export function recordedDigest(tenantEvent: KubeObject): string | undefined {
  return tenantEvent.metadata.annotations?.[EventBackKeys.HostEventDigest];
}

/** The labels every tenant copy of a host Event carries (what a pass lists them by). */
export function eventCopyLabels(tenant: string): Record<string, string> {
  return { ...tenantCopyLabels(tenant), [HostClassKeys.FromHost]: FROM_HOST_VALUE };
}

/** A label selector for {@link eventCopyLabels}. */
export function eventCopySelector(tenant: string): string {
  return Object.entries(eventCopyLabels(tenant))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/** A host name -> tenant name map of this tenant's copies, read from their reverse mapping. */
export type Renames = ReadonlyMap<string, string>;

/**
 * Adds what a message may say of one copy: its host name, `<host namespace>/<host name>` (how
 * controllers name an object) as `<virtual namespace>/<name>`, and `<host name>_<host namespace>`
 * (how the kubelet names a Pod) as `<name>_<virtual namespace>`.
 */
export function addRename(
  renames: Map<string, string>,
  hostNamespace: string,
  hostName: string,
  source: { virtualNamespace: string; virtualName: string },
): void {
  const { virtualNamespace, virtualName } = source;
  renames.set(hostName, virtualName);
  renames.set(`${hostNamespace}/${hostName}`, `${virtualNamespace}/${virtualName}`);
  renames.set(`${hostName}_${hostNamespace}`, `${virtualName}_${virtualNamespace}`);
}

/** A DNS subdomain, as a word of a message. */
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?';
/** A name, or two joined by `/` or `_` (`namespace/name`, `name_namespace`). */
const NAME_TOKEN = new RegExp(`${NAME}(?:[/_]${NAME})?`, 'g');

/**
 * `message` with every whole word that is a known copy's host name (alone, or joined with the
 * host namespace, see {@link addRename}) replaced by its tenant name, and cut to
 * {@link MAX_MESSAGE}. Only known copies are renamed: another tenant's or a foreign name stays as
 * it is, never turned into a guess.
 */
export function rewriteMessage(message: string, renames: Renames): string {
  const rewritten = message.replace(NAME_TOKEN, (word) => {
    const whole = renames.get(word);
    if (whole !== undefined) return whole;
    // `pod/<host name>`, `<host name>_other`: each part on its own.
    return word
      .split(/([/_])/)
      .map((part) => renames.get(part) ?? part)
      .join('');
  });
  return rewritten.length <= MAX_MESSAGE ? rewritten : `${rewritten.slice(0, MAX_MESSAGE - 1)}…`;
}

/** The tenant object a copy of a host Event is about. */
export interface EventTarget {
  rule: KindRef;
  namespace: string;
  name: string;
  uid: string;
  /** The host Event's `involvedObject.fieldPath` (a container's: the same in the tenant). */
  fieldPath?: string;
}

/**
 * The tenant Event that copies `hostEvent` for `tenant`, about `target`: in the tenant object's
 * namespace, with what it follows and carries, the message in tenant names, the engine's labels
 * and the host Event's uid and digest. Host-only parts (`related`, the host's metadata) stay out.
 */
export function tenantEventCopy(
  hostEvent: KubeObject,
  target: EventTarget,
  renames: Renames,
  tenant: string,
): KubeObject {
  const uid = hostEvent.metadata.uid ?? '';
  const copy: KubeObject = {
    ...EVENT,
    metadata: {
      name: tenantEventName(target.name, uid),
      namespace: target.namespace,
      labels: eventCopyLabels(tenant),
      annotations: {
        [EventBackKeys.HostEventUid]: uid,
        [EventBackKeys.HostEventDigest]: hostEventDigest(hostEvent),
      },
    },
    involvedObject: {
      apiVersion: target.rule.apiVersion,
      kind: target.rule.kind,
      namespace: target.namespace,
      name: target.name,
      uid: target.uid,
      ...(target.fieldPath === undefined ? {} : { fieldPath: target.fieldPath }),
    },
  };
  for (const field of [...FOLLOWED, ...CARRIED]) {
    const value = hostEvent[field];
    if (value !== undefined && value !== null) copy[field] = cloneJson(value);
  }
  if (typeof hostEvent.message === 'string')
    copy.message = rewriteMessage(hostEvent.message, renames);
  return copy;
}

/**
 * The update of `observed` (this tenant's copy of `hostEvent`) that makes it follow the host
 * Event again: its own metadata (name, resourceVersion) and `involvedObject` kept, the rest anew.
 */
export function followedCopy(
  observed: KubeObject,
  hostEvent: KubeObject,
  renames: Renames,
  tenant: string,
): KubeObject {
  const involved = involvedObjectOf(observed);
  const desired = tenantEventCopy(
    hostEvent,
    {
      rule: { apiVersion: involved.apiVersion ?? '', kind: involved.kind ?? '' },
      namespace: observed.metadata.namespace ?? '',
      name: involved.name ?? '',
      uid: involved.uid ?? '',
    },
    renames,
    tenant,
  );
  return {
    ...desired,
    metadata: {
      ...observed.metadata,
      annotations: { ...observed.metadata.annotations, ...desired.metadata.annotations },
    },
    involvedObject: observed.involvedObject,
  };
}

/** How many times an Event was seen: `count`, or its `series.count`, at least 1. */
export function timesSeen(event: KubeObject): number {
  const series = isRecord(event.series) ? event.series.count : undefined;
  const counted = [event.count, series].filter((n): n is number => typeof n === 'number');
  return Math.max(1, ...counted);
}

/** When an Event was last seen (ms), for ordering: the latest of its times. */
export function lastSeenMs(event: KubeObject): number {
  const series = isRecord(event.series) ? event.series.lastObservedTime : undefined;
  const times = [event.lastTimestamp, event.eventTime, series, event.firstTimestamp]
    .filter((t): t is string => typeof t === 'string')
    .map((t) => Date.parse(t))
    .filter((ms) => Number.isFinite(ms));
  return times.length === 0 ? 0 : Math.max(...times);
}
