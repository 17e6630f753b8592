/**
 * Reading the Decisions back from the Kubernetes Events the Events sink wrote on a
 * TenantCluster (for `status` and `explain`).
 */
import { EVENTS_NAMESPACE, EventAnnotations } from '../adapters/events-sink.js';
import { TENANT_CLUSTER } from '../engine/index.js';
import type { ClusterApi, KubeObject, ObjectRef } from '../ports/index.js';
import { formatTable } from './format.js';

const EVENT_KIND = { apiVersion: 'v1', kind: 'Event' } as const;

/** The fields of a core/v1 Event the command shows. */
export interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
  /** ISO time of the latest occurrence. */
  lastSeen: string;
  annotations: Record<string, string>;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** An Event object as an {@link EventView}. */
export function eventView(event: KubeObject): EventView {
  const series = (event.series ?? {}) as Record<string, unknown>;
  const lastSeen =
    str(series.lastObservedTime) ??
    str(event.lastTimestamp) ??
    str(event.eventTime) ??
    str(event.firstTimestamp) ??
    str(event.metadata.creationTimestamp) ??
    '';
  const seriesCount = typeof series.count === 'number' ? series.count : undefined;
  const count = typeof event.count === 'number' ? event.count : (seriesCount ?? 1);
  return {
    type: str(event.type) ?? 'Normal',
    reason: str(event.reason) ?? '',
    message: str(event.message) ?? '',
    count,
    lastSeen,
    annotations: { ...(event.metadata.annotations ?? {}) },
  };
}

/** Every Event in the Events namespace matching `fieldSelector`, all pages, latest first. */
async function listEvents(hostApi: ClusterApi, fieldSelector: string): Promise<EventView[]> {
  const events: KubeObject[] = [];
  let continueToken: string | undefined;
  do {
    const page = await hostApi.list(EVENT_KIND, {
      namespace: EVENTS_NAMESPACE,
      fieldSelector,
      limit: 500,
      ...(continueToken ? { continueToken } : {}),
    });
    events.push(...page.items);
    continueToken = page.continueToken;
  } while (continueToken);
  return events.map(eventView).sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
}

/** Every Event whose involvedObject is the TenantCluster `tenant`, latest first. */
export function tenantClusterEvents(hostApi: ClusterApi, tenant: string): Promise<EventView[]> {
  return listEvents(
    hostApi,
    `involvedObject.kind=${TENANT_CLUSTER.kind},involvedObject.name=${tenant}`,
  );
}

/**
 * Events of every TenantCluster that are about the host object `hostRef`, latest first: what an
 * operator needs when the object itself is gone (which tenant it belonged to is then unknown).
 */
export async function hostObjectEvents(
  hostApi: ClusterApi,
  hostRef: ObjectRef,
): Promise<EventView[]> {
  const events = await listEvents(hostApi, `involvedObject.kind=${TENANT_CLUSTER.kind}`);
  return events.filter((e) => eventMentions(e, hostRef));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when the Event is about the host object `hostRef`: its host-ref annotation (written by
 * the Events sink) names it, or, for Events without that annotation, the message names it as
 * `<namespace>/<name>`.
 */
export function eventMentions(event: EventView, hostRef: ObjectRef): boolean {
  const full = `${hostRef.namespace}/${hostRef.name}`;
  const annotated = event.annotations[EventAnnotations.HostRef];
  if (annotated !== undefined) return annotated === full;
  return new RegExp(`(^|[\\s"'(])${escapeRegExp(full)}($|[\\s"',.;:)])`).test(event.message);
}

/** `2m ago` style age of an ISO time relative to `now`. */
export function age(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '<unknown>';
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Events as a table: LAST SEEN, TYPE, REASON, COUNT, MESSAGE. */
export function eventTable(events: readonly EventView[], now: number): string {
  const rows = [['LAST SEEN', 'TYPE', 'REASON', 'COUNT', 'MESSAGE']];
  for (const e of events)
    rows.push([age(e.lastSeen, now), e.type, e.reason, String(e.count), e.message]);
  return formatTable(rows);
}
