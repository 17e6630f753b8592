/** A TenantCluster's status conditions as rows of `tenantplane status`. */
import { type Condition, ConditionType } from '../engine/index.js';
import type { Color, Paint } from './format.js';

/** The color of a condition's status: green when good, yellow when bad, none when unknown. */
function colorOf(condition: Condition): Color | undefined {
  if (condition.status === 'Unknown') return undefined;
  const good = condition.type === ConditionType.Degraded ? 'False' : 'True';
  return condition.status === good ? 'green' : 'yellow';
}

/**
 * One row per condition: `Ready:  True (Converged) since <time>`, then its message on a row of
 * its own, indented.
 */
export function conditionRows(conditions: readonly Condition[], paint: Paint): string[][] {
  const rows: string[][] = [];
  for (const condition of conditions) {
    const color = colorOf(condition);
    const status = color ? paint(color, condition.status) : condition.status;
    const since = condition.lastTransitionTime ? ` since ${condition.lastTransitionTime}` : '';
    const reason = condition.reason ? ` (${condition.reason})` : '';
    rows.push([`${condition.type}:`, `${status}${reason}${since}`]);
    if (condition.message) rows.push(['', condition.message]);
  }
  return rows;
}
