import { describe, expect, it } from '@jest/globals';
import { selectDecisionEvents } from '../../../../lib/adapters/events/index.js';
import { DecisionAction } from '../../../../lib/ports/index.js';
import { decision } from '../support.js';

const { Create, Update, Delete, Skip } = DecisionAction;

describe('selectDecisionEvents', () => {
  it('orders Delete, Skip, then failed before successful, then pass order', () => {
    const ds = [
      decision(Update, 'u1'),
      decision(Create, 'c1'),
      decision(Create, 'c2', { error: 'denied' }),
      decision(Skip, 's1'),
      decision(Delete, 'd1'),
    ];
    const { selected, notEmitted } = selectDecisionEvents(ds, 4);
    expect(selected.map((g) => g.decision.tenantRef.name)).toEqual(['d1', 's1', 'c2', 'c1']);
    expect(notEmitted).toBe(1);
    expect(selectDecisionEvents(ds, 0)).toEqual({ selected: [], notEmitted: 5 });
  });
});
