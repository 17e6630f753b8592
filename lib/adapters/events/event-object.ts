/**
 * Building the core/v1 Events about a TenantCluster. The TenantCluster is cluster-scoped, so its
 * Events live in {@link EVENTS_NAMESPACE} with an `involvedObject` of `{apiVersion, kind, name,
 * uid}` and no namespace; `kubectl describe tenantcluster` finds them by that.
 */
import { EventAnnotations, Labels, MANAGED_BY_VALUE } from '../../engine/index.js';
import {
  DecisionAction,
  EVENT,
  type KubeObject,
  type PassResult,
  type PassWarning,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import type { DecisionGroup } from './flood-control.js';
import {
  decisionEventName,
  EVENT_COMPONENT,
  EVENTS_NAMESPACE,
  PASS_SUMMARY_REASON,
  passSummaryEventName,
  warningEventName,
} from './identity.js';
import { decisionEventMessage, passSummaryMessage } from './messages.js';

/** The TenantCluster an Event is about. */
export interface TenantClusterRef {
  /** Tenant cluster name (= the TenantCluster's name). */
  tenant: string;
  uid: string;
}

/** What one Event says, before it becomes a new Event or a bump of an existing one. */
export interface EventSpec {
  name: string;
  reason: string;
  type: 'Normal' | 'Warning';
  message: string;
  occurrences: number;
  annotations: Record<string, string>;
}

/** metav1.Time: RFC 3339 with whole seconds. */
export function kubeTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The Event of a group of identical decisions. Reason = the action (`<Action>Failed` when its
 * write failed); `Warning` for a Delete, since it removes something from the host, and for a
 * failed write; `Normal` otherwise.
 */
export function decisionEventSpec(about: TenantClusterRef, group: DecisionGroup): EventSpec {
  const d = group.decision;
  const failed = d.error !== undefined;
  return {
    name: decisionEventName(about.tenant, about.uid, d),
    reason: failed ? `${d.action}Failed` : d.action,
    type: d.action === DecisionAction.Delete || failed ? 'Warning' : 'Normal',
    message: decisionEventMessage(d),
    occurrences: group.occurrences,
    annotations: {
      [EventAnnotations.TenantRef]: `${d.tenantRef.namespace}/${d.tenantRef.name}`,
      [EventAnnotations.HostRef]: `${d.hostRef.namespace}/${d.hostRef.name}`,
      [EventAnnotations.Kind]: d.kind,
      [EventAnnotations.PassId]: d.passId,
    },
  };
}

/** The Warning Event of something a pass stopped short of (e.g. the mass-delete guard). */
export function warningEventSpec(
  about: TenantClusterRef,
  warning: PassWarning,
  passId: string,
): EventSpec {
  return {
    name: warningEventName(about.tenant, about.uid, warning),
    reason: warning.reason,
    type: 'Warning',
    message: warning.message,
    occurrences: 1,
    annotations: { [EventAnnotations.PassId]: passId },
  };
}

/**
 * The summary Event of a pass: `Warning` when the pass was incomplete or had errors, so that
 * `kubectl get events --field-selector type=Warning` shows passes that need attention.
 */
export function passSummaryEventSpec(
  about: TenantClusterRef,
  result: PassResult,
  decisions: number,
  notEmitted: number,
  maxEventsPerPass: number,
): EventSpec {
  return {
    name: passSummaryEventName(about.tenant, about.uid, result, notEmitted),
    reason: PASS_SUMMARY_REASON,
    type: result.complete && result.errors.length === 0 ? 'Normal' : 'Warning',
    message: passSummaryMessage(result, decisions, notEmitted, maxEventsPerPass),
    occurrences: 1,
    annotations: { [EventAnnotations.PassId]: result.passId },
  };
}

/** A new Event object for `spec`, first seen `now` (a {@link kubeTime}). */
export function newEventObject(spec: EventSpec, about: TenantClusterRef, now: string): KubeObject {
  return {
    ...EVENT,
    metadata: {
      name: spec.name,
      namespace: EVENTS_NAMESPACE,
      labels: { [Labels.ManagedBy]: MANAGED_BY_VALUE, [Labels.Tenant]: about.tenant },
      annotations: spec.annotations,
    },
    involvedObject: { ...TENANT_CLUSTER, name: about.tenant, uid: about.uid },
    reason: spec.reason,
    message: spec.message,
    type: spec.type,
    count: spec.occurrences,
    firstTimestamp: now,
    lastTimestamp: now,
    source: { component: EVENT_COMPONENT },
    reportingComponent: EVENT_COMPONENT,
    reportingInstance: EVENT_COMPONENT,
  };
}
