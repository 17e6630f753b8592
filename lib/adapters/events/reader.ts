/**
 * Reading the Decisions back from the Events on TenantClusters (for `tenantplane status` and
 * `tenantplane explain`). Events about a TenantCluster that other tools wrote are read too: they
 * lack the sink's annotations, so they are matched by their message.
 */
import { EventAnnotations } from '../../engine/index.js';
import {
  type ClusterApi,
  EVENT,
  type KubeObject,
  type ObjectRef,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { EVENTS_NAMESPACE } from './identity.js';

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

/**
 * An Event object as an {@link EventView}. Takes the latest time and the count from whichever
 * of the core/v1 and events.k8s.io fields the writer filled in.
 */
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
    const page = await hostApi.list(EVENT, {
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
 * Events of every TenantCluster that are about the host object `hostRef` of `kind`, latest
 * first: what an operator needs when the object itself is gone (which tenant it belonged to is
 * then unknown).
 */
export async function hostObjectEvents(
  hostApi: ClusterApi,
  hostRef: ObjectRef,
  kind?: string,
): Promise<EventView[]> {
  const events = await listEvents(hostApi, `involvedObject.kind=${TENANT_CLUSTER.kind}`);
  return events.filter((e) => eventMentions(e, hostRef, kind));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when the Event is about the host object `hostRef` (of `kind`, when given): its host-ref
 * annotation (written by the Events sink) names it, or, for Events without that annotation, the
 * message names it as `<namespace>/<name>`. A name alone is not an object: a Pod and a Service
 * of one source share their host name, so an Event whose kind annotation names another kind is
 * about another object.
 */
export function eventMentions(event: EventView, hostRef: ObjectRef, kind?: string): boolean {
  const annotatedKind = event.annotations[EventAnnotations.Kind];
  if (kind !== undefined && annotatedKind !== undefined && annotatedKind !== kind) return false;
  const full = `${hostRef.namespace}/${hostRef.name}`;
  const annotated = event.annotations[EventAnnotations.HostRef];
  if (annotated !== undefined) return annotated === full;
  // Bounded on both sides so that `ns/app` does not match inside `ns/app-2`.
  return new RegExp(`(^|[\\s"'(])${escapeRegExp(full)}($|[\\s"',.;:)])`).test(event.message);
}
