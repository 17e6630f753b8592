import { describe, expect, it } from '@jest/globals';
import { conditionRows } from '../../../lib/cli/condition-rows.js';
import { painter, stripAnsi } from '../../../lib/cli/format.js';
import type { Condition } from '../../../lib/engine/index.js';

const at = '2030-01-01T00:00:00Z';

describe('conditionRows', () => {
  it('one row per condition and its message below, colored by whether it is good', () => {
    const conditions: Condition[] = [
      {
        type: 'Ready',
        status: 'False',
        reason: 'PassIncomplete',
        message: 'deadline',
        lastTransitionTime: at,
      },
      {
        type: 'Degraded',
        status: 'True',
        reason: 'PassIncomplete',
        message: '',
        lastTransitionTime: at,
      },
    ];
    expect(conditionRows(conditions, painter(false))).toEqual([
      ['Ready:', `False (PassIncomplete) since ${at}`],
      ['', 'deadline'],
      ['Degraded:', `True (PassIncomplete) since ${at}`],
    ]);
    const colored = conditionRows(conditions, painter(true));
    expect(colored[0]?.[1]).toContain('\u001b[33mFalse');
    expect(stripAnsi(colored[0]?.[1] ?? '')).toBe(`False (PassIncomplete) since ${at}`);
    const good = conditionRows([{ ...conditions[1]!, status: 'False' }], painter(true));
    expect(good[0]?.[1]).toContain('\u001b[32mFalse');
  });
});
