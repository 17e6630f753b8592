import { describe, expect, it } from '@jest/globals';
import {
  decisionEventMessage,
  MAX_EVENT_MESSAGE,
  passSummaryMessage,
} from '../../../../lib/adapters/events/index.js';
import { DecisionAction } from '../../../../lib/ports/index.js';
import { decision, passResult } from '../support.js';

const { Create, Skip } = DecisionAction;

describe('decisionEventMessage', () => {
  it('cuts messages to 1024 characters', () => {
    const d = decision(Skip, 'a', { reason: 'x'.repeat(5000) });
    const message = decisionEventMessage(d);
    expect(message.length).toBe(MAX_EVENT_MESSAGE);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe('passSummaryMessage', () => {
  const error = { kind: 'ConfigMap', message: 'denied' };

  it('counts errors in words and names an incomplete pass without a reason', () => {
    const result = passResult([decision(Create, 'a')], {
      complete: false,
      errors: [error, error],
    });
    expect(passSummaryMessage(result, 1, 0)).toBe(
      'Pass pass-1: 1 Create, 0 Update, 0 Delete, 0 Skip, 2 errors; incomplete: unknown reason. Every decision has its own Event.',
    );
  });

  it('says how many decisions have no Event, with the default cap', () => {
    const result = passResult([decision(Create, 'a')], { errors: [error] });
    expect(passSummaryMessage(result, 30, 5)).toContain(
      '1 error; complete. 5 of 30 decisions are not shown as Events (at most 25 per pass)',
    );
  });
});
