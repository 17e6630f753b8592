/**
 * What makes two Events the same Event. Names are deterministic so that a decision repeating
 * every pass (a persistent Skip) finds its Event with one GET and bumps it, instead of adding
 * an Event per pass until the namespace fills up.
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../../common/index.js';
import type { Decision, KubeObject, PassResult, PassWarning } from '../../ports/index.js';

/** `source.component` and `reportingComponent` of every Event. */
export const EVENT_COMPONENT = 'tenantplane-sync';
/** Namespace of the Events of a cluster-scoped object. */
export const EVENTS_NAMESPACE = 'default';
/** Reason of the per-pass summary Event. */
export const PASS_SUMMARY_REASON = 'PassSummary';

function hash(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/** The identity of a decision for Event de-duplication (what it is about, not when). */
export function decisionKey(d: Decision): readonly string[] {
  return [
    d.action,
    d.apiVersion,
    d.kind,
    d.tenantRef.namespace,
    d.tenantRef.name,
    d.hostRef.namespace,
    d.hostRef.name,
    d.reason,
    // A failed write is another Event (reason `<Action>Failed`) than the same write done.
    ...(d.error === undefined ? [] : ['failed']),
  ];
}

/**
 * Deterministic Event name of a decision: `<tenant>.<16 hex>` over the TenantCluster's uid and
 * {@link decisionKey}. The uid makes a re-created TenantCluster start with fresh Events.
 */
export function decisionEventName(tenant: string, tenantClusterUid: string, d: Decision): string {
  return `${tenant}.${hash([tenant, tenantClusterUid, ...decisionKey(d)])}`;
}

/**
 * Event name of a pass warning: the same warning (same reason and message) pass after pass bumps
 * one Event, like a persistent Skip, instead of piling up new ones.
 */
export function warningEventName(tenant: string, tenantClusterUid: string, w: PassWarning): string {
  return `${tenant}.${hash([tenantClusterUid, 'warning', w.reason, w.message])}`;
}

/**
 * Deterministic name of a pass's summary Event: passes with the same outcome share one Event
 * (it is bumped), so a steady state costs no new Events; the pass id is deliberately left out.
 */
export function passSummaryEventName(
  tenant: string,
  tenantClusterUid: string,
  result: PassResult,
  notEmitted: number,
): string {
  const c = result.counts;
  const key = [
    PASS_SUMMARY_REASON,
    c.Create,
    c.Update,
    c.Delete,
    c.Skip,
    result.errors.length,
    result.complete,
    result.incompleteReason ?? '',
    notEmitted,
    // Failed and already-gone counts only when there are any, so other names stay as they were.
    ...(failedOrGone(result) ? [result.failed, result.alreadyGone ?? 0] : []),
  ];
  return `${tenant}.${hash([tenant, tenantClusterUid, ...key])}`;
}

function failedOrGone(result: PassResult): boolean {
  const f = result.failed;
  return (result.alreadyGone ?? 0) > 0 || (f !== undefined && f.Create + f.Update + f.Delete > 0);
}

/** True when `object` is an Event the Events sink wrote (for tests and tools). */
export function isTenantplaneEvent(object: KubeObject): boolean {
  const source = object.source;
  return isRecord(source) && source.component === EVENT_COMPONENT;
}
