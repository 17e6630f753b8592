/**
 * The convergence state of a pass: read from the recorded status (kinds that left the policy
 * forgotten), written back only when it changed and never by a dry run; GC's order (oldest
 * orphan first) and its back-off of deletes the host keeps refusing.
 */
import { describe, expect, it } from '@jest/globals';
import {
  convergenceStatus,
  deleteAttempt,
  newConvergence,
  oldestFirst,
} from '../../../../lib/engine/context/convergence.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, HOST_NS, passContext, SECRET } from '../support.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const clock = { now: () => T0 };
const entry = (kind: string, object: string) => ({
  apiVersion: 'v1',
  kind,
  op: 'apply',
  object,
  version: 'v',
  reason: 'Invalid',
  failures: 1,
  retryAfter: new Date(T0 + 60_000).toISOString(),
});

const copy = (name: string, created?: string, rv = '1'): KubeObject => ({
  ...CONFIGMAP,
  metadata: {
    namespace: HOST_NS,
    name,
    uid: `uid-${name}`,
    resourceVersion: rv,
    ...(created ? { creationTimestamp: created } : {}),
  },
});

describe('newConvergence', () => {
  it('reads the retry memory and forgets kinds that left the policy', () => {
    const status = { retries: [entry('ConfigMap', 'default/a'), entry('Secret', 'default/s')] };
    const c = newConvergence(status, [CONFIGMAP], clock);
    expect(c.kindCount).toBe(1);
    expect(c.retries.list().map((e) => e.kind)).toEqual(['ConfigMap']);
  });

  it('the status is written when the memory changed, never by a dry run', () => {
    const ctx = passContext();
    Object.assign(ctx.memory, {
      convergence: newConvergence(
        { retries: [entry('Secret', 'default/s')] },
        [CONFIGMAP, SECRET],
        clock,
      ),
    });
    expect(convergenceStatus(ctx)).toBeUndefined();
    ctx.memory.convergence.retries.succeeded({
      kind: SECRET,
      op: 'apply',
      object: { namespace: 'default', name: 's' },
    });
    expect(convergenceStatus(ctx)).toEqual({ retries: [] });
    expect(convergenceStatus({ ...ctx, scope: { ...ctx.scope, dryRun: true } })).toBeUndefined();
  });
});

describe('oldestFirst', () => {
  it('orders by creation time, then name; a missing time sorts first', () => {
    const candidates = [
      { object: copy('b', '2025-02-01T00:00:00Z') },
      { object: copy('a', '2025-03-01T00:00:00Z') },
      { object: copy('c', '2025-02-01T00:00:00Z') },
      { object: copy('z') },
    ];
    expect(oldestFirst(candidates).map((c) => c.object.metadata.name)).toEqual([
      'z',
      'b',
      'c',
      'a',
    ]);
  });
});

describe('deleteAttempt', () => {
  const refs = {
    tenantRef: { namespace: 'default', name: 'a' },
    hostRef: { namespace: HOST_NS, name: 'a-x-default-x-dev' },
  };

  it('without a memory every delete is attempted', () => {
    const ctx = passContext();
    expect(deleteAttempt(ctx, CONFIGMAP, copy('a'), refs)).toBeDefined();
  });

  it('a refused delete of the same copy version backs off; a changed copy is due at once', () => {
    const ctx = passContext();
    Object.assign(ctx.memory, { convergence: newConvergence({}, [CONFIGMAP], clock) });
    deleteAttempt(ctx, CONFIGMAP, copy('a'), refs)?.done(new ClusterError('Forbidden', 'kept'));
    expect(deleteAttempt(ctx, CONFIGMAP, copy('a'), refs)).toBeUndefined();
    expect(ctx.ledger.errors.errors).toEqual([
      expect.objectContaining({
        kind: 'ConfigMap',
        reason: 'Forbidden',
        tenantRef: refs.tenantRef,
        message: expect.stringMatching(/^not retried before 2030-01-01T00:10:00.000Z/),
      }),
    ]);
    expect(deleteAttempt(ctx, CONFIGMAP, copy('a', undefined, '2'), refs)).toBeDefined();
  });

  it('a delete that worked forgets the object', () => {
    const ctx = passContext();
    Object.assign(ctx.memory, { convergence: newConvergence({}, [CONFIGMAP], clock) });
    deleteAttempt(ctx, CONFIGMAP, copy('a'), refs)?.done(new ClusterError('Forbidden', 'kept'));
    ctx.memory.convergence.retries.succeeded({
      kind: CONFIGMAP,
      op: 'delete',
      object: refs.tenantRef,
    });
    deleteAttempt(ctx, CONFIGMAP, copy('a'), refs)?.done(undefined);
    expect(ctx.memory.convergence.retries.size).toBe(0);
  });
});
