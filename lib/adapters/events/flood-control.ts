/**
 * Flood control, after client-go's recorder (a burst of 25 per object): which decisions of a
 * pass get their own Event. The rest are only counted in the summary Event; the logs have all
 * of them.
 */
import { type Decision, DecisionAction } from '../../ports/index.js';
import { decisionKey } from './identity.js';

/** Default cap of decision Events per pass. */
export const DEFAULT_MAX_EVENTS_PER_PASS = 25;

// Deletes and Skips first: they are what an operator asks `kubectl describe` about.
const ACTION_PRIORITY: Record<DecisionAction, number> = {
  [DecisionAction.Delete]: 0,
  [DecisionAction.Skip]: 1,
  [DecisionAction.Create]: 2,
  [DecisionAction.Update]: 3,
};

/** A group of identical decisions of one pass: one Event. */
export interface DecisionGroup {
  decision: Decision;
  occurrences: number;
}

/**
 * Groups identical decisions, orders them Delete, Skip, Create, Update (failed ones first
 * within an action, else in pass order) and keeps the first `max` groups.
 *
 * @returns the kept groups, and how many decisions (not groups) have no Event of their own
 */
export function selectDecisionEvents(
  decisions: readonly Decision[],
  max: number,
): { selected: DecisionGroup[]; notEmitted: number } {
  const groups = new Map<string, DecisionGroup>();
  for (const d of decisions) {
    const key = JSON.stringify(decisionKey(d));
    const group = groups.get(key);
    if (group) group.occurrences += 1;
    else groups.set(key, { decision: d, occurrences: 1 });
  }
  const ordered = [...groups.values()]
    .map((g, index) => ({ g, index }))
    .sort(
      (a, b) =>
        ACTION_PRIORITY[a.g.decision.action] - ACTION_PRIORITY[b.g.decision.action] ||
        Number(b.g.decision.error !== undefined) - Number(a.g.decision.error !== undefined) ||
        a.index - b.index,
    )
    .map(({ g }) => g);
  const selected = ordered.slice(0, Math.max(0, max));
  const shown = selected.reduce((n, g) => n + g.occurrences, 0);
  return { selected, notEmitted: decisions.length - shown };
}
