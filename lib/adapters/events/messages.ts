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
  const failed = d.error === undefined ? '' : ` (${d.action} failed: ${d.error})`;
  return truncate(
    `${d.kind} ${d.tenantRef.namespace}/${d.tenantRef.name} -> host ${d.hostRef.namespace}/${d.hostRef.name}: ${d.reason}${failed}`,
  );
}

/**
 * `, 2 failed (1 Create, 1 Update), 1 already gone`: the Decisions that did not do what they say,
 * counted apart; empty when there are none.
 */
export function failedCountsText(result: Pick<PassResult, 'failed' | 'alreadyGone'>): string {
  const f = result.failed;
  const parts = f
    ? (['Create', 'Update', 'Delete'] as const).filter((a) => f[a] > 0).map((a) => `${f[a]} ${a}`)
    : [];
  const total = f ? f.Create + f.Update + f.Delete : 0;
  const failed = total > 0 ? `, ${total} failed (${parts.join(', ')})` : '';
  const gone = result.alreadyGone ? `, ${result.alreadyGone} already gone` : '';
  return `${failed}${gone}`;
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
    `Pass ${result.passId}: ${c.Create} Create, ${c.Update} Update, ${c.Delete} Delete, ${c.Skip} Skip${failedCountsText(result)}, ${plural(result.errors.length, 'error')}; ${state}. ${shown}`,
  );
}
