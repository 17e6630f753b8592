/** The text of the Events, as `kubectl describe tenantcluster` shows it. */
import { plural } from '../../common/index.js';
import type { Decision, PassResult } from '../../ports/index.js';
import { DEFAULT_MAX_EVENTS_PER_PASS } from './flood-control.js';

/** Event messages are cut to this length (events.k8s.io's `note` limit). */
export const MAX_EVENT_MESSAGE = 1024;

function truncate(text: string, max = MAX_EVENT_MESSAGE): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The message of a decision Event: the tenant object (`Kind vns/name`), the host target
 * (`hostns/hostname`), the reason, and the error of a failed write.
 */
export function decisionEventMessage(d: Decision): string {
  const failed = d.error === undefined ? '' : ` (failed: ${d.error})`;
  return truncate(
    `${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> host ${d.hostRef.namespace}/${d.hostRef.name}: ${d.reason}${failed}`,
  );
}

/**
 * The message of the summary Event: the counts, complete or why not, and how many decisions
 * have no Event of their own (so a reader knows to look in the logs).
 */
export function passSummaryMessage(
  result: PassResult,
  decisions: number,
  notEmitted: number,
  maxEventsPerPass: number = DEFAULT_MAX_EVENTS_PER_PASS,
): string {
  const c = result.counts;
  const state = result.complete
    ? 'complete'
    : `incomplete: ${result.incompleteReason ?? 'unknown reason'}`;
  const shown =
    notEmitted === 0
      ? `Every decision has its own Event.`
      : `${notEmitted} of ${decisions} decisions are not shown as Events (at most ${maxEventsPerPass} per pass); the logs have all of them (passId ${result.passId}).`;
  return truncate(
    `Pass ${result.passId}: ${c.Create} Create, ${c.Update} Update, ${c.Delete} Delete, ${c.Skip} Skip, ${plural(result.errors.length, 'error')}; ${state}. ${shown}`,
  );
}
