/** Ledger.decide: records the Decision; one whose write failed is also an error of the pass. */
import { describe, expect, it } from '@jest/globals';
import { ClusterError } from '../../../../lib/ports/index.js';
import { HOST_NS, passContext, RecordingSink, SECRET, TENANT } from '../support.js';

const RULE = { apiVersion: 'v1', kind: 'ConfigMap' };
const REFS = {
  tenantRef: { namespace: 'default', name: 'app' },
  hostRef: { namespace: HOST_NS, name: 'app-x-default-x-dev' },
};

describe('decide', () => {
  it('records the decision with the pass’s identity and streams it to the sinks', () => {
    const sink = new RecordingSink();
    const ctx = passContext({ sinks: [sink] });
    ctx.ledger.decide({ action: 'Create', rule: RULE, ...REFS, reason: 'no host copy yet' });
    const expected = {
      action: 'Create',
      tenant: TENANT,
      kind: 'ConfigMap',
      apiVersion: 'v1',
      tenantRef: REFS.tenantRef,
      hostRef: REFS.hostRef,
      reason: 'no host copy yet',
      passId: 'pass-1',
      dryRun: false,
    };
    expect(ctx.ledger.recorder.decisions).toEqual([expected]);
    expect('error' in (ctx.ledger.recorder.decisions[0] ?? {})).toBe(false);
    expect(sink.decisions).toEqual([expected]);
    expect(ctx.ledger.recorder.counts).toEqual({ Create: 1, Update: 0, Delete: 0, Skip: 0 });
    expect(ctx.ledger.errors.errors).toEqual([]);
  });

  it('takes kind and apiVersion from the rule and dryRun from the pass', () => {
    const ctx = passContext({ dryRun: true });
    ctx.ledger.decide({ action: 'Skip', rule: SECRET, ...REFS, reason: 'occupied' });
    expect(ctx.ledger.recorder.decisions[0]).toMatchObject({
      action: 'Skip',
      kind: 'Secret',
      apiVersion: 'v1',
      dryRun: true,
    });
  });

  const failures: Array<{
    name: string;
    error: unknown;
    expectedMessage: string;
    expectedReason: string | undefined;
    expectedStopped: boolean;
  }> = [
    {
      name: 'a rejected write',
      error: new ClusterError('Invalid', 'denied by admission'),
      expectedMessage: 'denied by admission',
      expectedReason: 'Invalid',
      expectedStopped: false,
    },
    {
      name: 'a plain error',
      error: new Error('socket closed'),
      expectedMessage: 'socket closed',
      expectedReason: undefined,
      expectedStopped: false,
    },
    {
      name: 'a 429, which also stops the pass',
      error: new ClusterError('TooManyRequests', 'slow down'),
      expectedMessage: 'slow down',
      expectedReason: 'TooManyRequests',
      expectedStopped: true,
    },
  ];
  it.each(failures)(
    'a failed write ($name) stands as decided and is an error of the pass',
    ({ error, expectedMessage, expectedReason, expectedStopped }) => {
      const ctx = passContext();
      ctx.ledger.decide({
        action: 'Update',
        rule: RULE,
        ...REFS,
        reason: 'host copy differs',
        error: error,
      });
      expect(ctx.ledger.recorder.decisions).toEqual([
        expect.objectContaining({ action: 'Update', error: expectedMessage }),
      ]);
      // Counted apart: a failed write is not an Update made.
      expect(ctx.ledger.recorder.counts.Update).toBe(0);
      expect(ctx.ledger.recorder.failed.Update).toBe(1);
      expect(ctx.ledger.errors.errors).toEqual([
        {
          kind: 'ConfigMap',
          tenantRef: REFS.tenantRef,
          hostRef: REFS.hostRef,
          message: expectedMessage,
          ...(expectedReason ? { reason: expectedReason } : {}),
        },
      ]);
      expect(ctx.scope.bounds.isStopped()).toBe(expectedStopped);
    },
  );
});
