import { describe, expect, it } from '@jest/globals';
import {
  decisionEventName,
  EVENT_COMPONENT,
  isTenantplaneEvent,
  passSummaryEventName,
} from '../../../../lib/adapters/events/index.js';
import { type Decision, DecisionAction } from '../../../../lib/ports/index.js';
import { decision, passResult } from '../support.js';

const { Delete, Skip } = DecisionAction;

describe('decisionEventName', () => {
  it('names Events deterministically from the TenantCluster uid and what the decision is about', () => {
    const a = decision(Skip, 'app', { passId: 'p1' });
    const b = decision(Skip, 'app', { passId: 'p2', dryRun: true });
    expect(decisionEventName('dev', 'u1', a)).toBe(decisionEventName('dev', 'u1', b));
    expect(decisionEventName('dev', 'u1', a)).toMatch(/^dev\.[0-9a-f]{16}$/);
    expect(decisionEventName('dev', 'u2', a)).not.toBe(decisionEventName('dev', 'u1', a));
    for (const change of [
      { action: Delete },
      { kind: 'Secret' },
      { apiVersion: 'v2' },
      { tenantRef: { namespace: 'default', name: 'other' } },
      { hostRef: { namespace: 'tenant-dev', name: 'other' } },
      { reason: 'another reason' },
    ] satisfies Partial<Decision>[]) {
      expect(decisionEventName('dev', 'u1', { ...a, ...change })).not.toBe(
        decisionEventName('dev', 'u1', a),
      );
    }
  });
});

describe('passSummaryEventName', () => {
  it('is the same for passes with the same outcome, whatever their pass id', () => {
    const p1 = passResult([decision(Skip, 'app', { passId: 'p1' })]);
    const p2 = passResult([decision(Skip, 'app', { passId: 'p2' })]);
    expect(passSummaryEventName('dev', 'u1', p1, 0)).toBe(passSummaryEventName('dev', 'u1', p2, 0));
    expect(passSummaryEventName('dev', 'u1', p1, 0)).toMatch(/^dev\.[0-9a-f]{16}$/);
  });

  it('differs for another TenantCluster uid, outcome or number of decisions not shown', () => {
    const base = passResult([decision(Skip, 'app')]);
    const name = passSummaryEventName('dev', 'u1', base, 0);
    expect(passSummaryEventName('dev', 'u2', base, 0)).not.toBe(name);
    expect(passSummaryEventName('dev', 'u1', base, 1)).not.toBe(name);
    expect(
      passSummaryEventName('dev', 'u1', { ...base, complete: false, incompleteReason: 'x' }, 0),
    ).not.toBe(name);
    expect(passSummaryEventName('dev', 'u1', passResult([decision(Delete, 'app')]), 0)).not.toBe(
      name,
    );
  });
});

describe('isTenantplaneEvent', () => {
  it('recognises Events by their source component', () => {
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } };
    expect(isTenantplaneEvent({ ...event, source: { component: EVENT_COMPONENT } })).toBe(true);
    expect(isTenantplaneEvent({ ...event, source: { component: 'kubelet' } })).toBe(false);
    expect(isTenantplaneEvent(event)).toBe(false);
  });
});
