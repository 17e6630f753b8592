/**
 * Error aggregation: per-object and per-kind failures become entries of the pass result; a failed
 * listing also leaves its kind incomplete; a 429 anywhere stops the pass.
 */
import { describe, expect, it } from '@jest/globals';
import {
  clusterReason,
  formatObjectError,
  type ObjectErrors,
} from '../../../../lib/engine/context/object-errors.js';
import { ClusterError, type ObjectError } from '../../../../lib/ports/index.js';
import { CONFIGMAP, HOST_NS, passContext } from '../support.js';

const TENANT_REF = { namespace: 'default', name: 'app' };
const HOST_REF = { namespace: HOST_NS, name: 'app-x-default-x-dev' };

function errorsWithBounds(): ObjectErrors {
  return passContext().ledger.errors;
}

describe('clusterReason', () => {
  it.each<{ name: string; error: unknown; expected: string | undefined }>([
    { name: 'a ClusterError', error: new ClusterError('Forbidden', 'no'), expected: 'Forbidden' },
    { name: 'a plain Error', error: new Error('no'), expected: undefined },
    { name: 'a look-alike object', error: { reason: 'Forbidden' }, expected: undefined },
  ])('$name -> $expected', ({ error, expected }) => {
    expect(clusterReason(error)).toBe(expected);
  });
});

describe('formatObjectError', () => {
  const cases: Array<{ name: string; error: ObjectError; expected: string }> = [
    {
      name: 'a tenant object, with a reason',
      error: { kind: 'ConfigMap', tenantRef: TENANT_REF, message: 'nope', reason: 'Invalid' },
      expected: 'ConfigMap default/app: nope (Invalid)',
    },
    {
      name: 'the tenant ref wins over the host ref',
      error: { kind: 'ConfigMap', tenantRef: TENANT_REF, hostRef: HOST_REF, message: 'nope' },
      expected: 'ConfigMap default/app: nope',
    },
    {
      name: 'only a host ref',
      error: { kind: 'ConfigMap', hostRef: HOST_REF, message: 'nope', reason: 'Conflict' },
      expected: 'ConfigMap tenant-dev/app-x-default-x-dev: nope (Conflict)',
    },
    {
      name: 'a kind-level error',
      error: { kind: 'Secret', message: 'listing failed', reason: 'Forbidden' },
      expected: 'Secret: listing failed (Forbidden)',
    },
    {
      name: 'no reason',
      error: { kind: 'Secret', message: 'odd' },
      expected: 'Secret: odd',
    },
  ];
  it.each(cases)('$name', ({ error, expected }) => {
    expect(formatObjectError(error)).toBe(expected);
  });
});

describe('ObjectErrors.add', () => {
  const cases: Array<{
    name: string;
    error: unknown;
    tenantRef?: typeof TENANT_REF;
    hostRef?: typeof HOST_REF;
    expected: ObjectError;
  }> = [
    {
      name: 'a cluster error with both refs',
      error: new ClusterError('Invalid', 'denied', { status: 422 }),
      tenantRef: TENANT_REF,
      hostRef: HOST_REF,
      expected: {
        kind: 'ConfigMap',
        tenantRef: TENANT_REF,
        hostRef: HOST_REF,
        message: 'denied',
        reason: 'Invalid',
      },
    },
    {
      name: 'a plain error has no reason',
      error: new Error('broken'),
      tenantRef: TENANT_REF,
      expected: { kind: 'ConfigMap', tenantRef: TENANT_REF, message: 'broken' },
    },
    {
      name: 'a kind-level error has no refs',
      error: new Error('kind trouble'),
      expected: { kind: 'ConfigMap', message: 'kind trouble' },
    },
    {
      name: 'a thrown object is never printed',
      error: { data: { password: 'c2VjcmV0' } },
      expected: { kind: 'ConfigMap', message: 'unknown error' },
    },
  ];
  it.each(cases)('$name', ({ error, tenantRef, hostRef, expected }) => {
    const errors = errorsWithBounds();
    errors.add(CONFIGMAP, error, tenantRef, hostRef);
    expect(errors.errors).toEqual([expected]);
    expect(errors.incompleteKinds).toEqual([]);
  });

  it('keeps every error, in order', () => {
    const errors = errorsWithBounds();
    errors.add(CONFIGMAP, new Error('one'));
    errors.add({ apiVersion: 'v1', kind: 'Secret' }, new Error('two'));
    expect(errors.errors.map(formatObjectError)).toEqual(['ConfigMap: one', 'Secret: two']);
  });

  it.each<{ name: string; error: unknown; expectedStopped: boolean }>([
    {
      name: 'a 429 stops the pass',
      error: new ClusterError('TooManyRequests', 'slow down', { retryAfterSeconds: 2 }),
      expectedStopped: true,
    },
    {
      name: 'a Conflict does not',
      error: new ClusterError('Conflict', 'x'),
      expectedStopped: false,
    },
    { name: 'a plain error does not', error: new Error('x'), expectedStopped: false },
  ])('$name', ({ error, expectedStopped }) => {
    const ctx = passContext();
    ctx.ledger.errors.add(CONFIGMAP, error, TENANT_REF);
    expect(ctx.scope.bounds.isStopped()).toBe(expectedStopped);
    expect(ctx.ledger.errors.errors).toHaveLength(1);
  });
});

describe('ObjectErrors.listingFailed', () => {
  it('records one error naming the side and leaves the kind incomplete', () => {
    const ctx = passContext();
    ctx.ledger.errors.listingFailed(
      CONFIGMAP,
      'tenant',
      new ClusterError('Forbidden', 'configmaps is forbidden'),
      'the tenant listing failed',
    );
    expect(ctx.ledger.errors.errors).toEqual([
      {
        kind: 'ConfigMap',
        message: 'listing tenant ConfigMap objects failed: configmaps is forbidden',
        reason: 'Forbidden',
      },
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual(['ConfigMap: the tenant listing failed']);
    expect(ctx.scope.bounds.isStopped()).toBe(false);
  });

  it('a failure that is not a cluster error has the reason Unknown', () => {
    const ctx = passContext();
    ctx.ledger.errors.listingFailed(
      CONFIGMAP,
      'host',
      new Error('parse error'),
      'the host listing failed',
    );
    expect(ctx.ledger.errors.errors).toEqual([
      {
        kind: 'ConfigMap',
        message: 'listing host ConfigMap objects failed: parse error',
        reason: 'Unknown',
      },
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual(['ConfigMap: the host listing failed']);
  });

  it('a 429 listing stops the pass', () => {
    const ctx = passContext();
    ctx.ledger.errors.listingFailed(
      CONFIGMAP,
      'host',
      new ClusterError('TooManyRequests', 'slow down'),
      'the host listing failed',
    );
    expect(ctx.scope.bounds.isStopped()).toBe(true);
    expect(ctx.scope.bounds.stopReason).toMatch(/429 Too Many Requests/);
  });
});

describe('ObjectErrors.kindIncomplete', () => {
  it('adds `<Kind>: <why>` without an error', () => {
    const errors = errorsWithBounds();
    errors.kindIncomplete(CONFIGMAP, 'stopped during garbage collection');
    errors.kindIncomplete({ apiVersion: 'v1', kind: 'Secret' }, 'not finished');
    expect(errors.incompleteKinds).toEqual([
      'ConfigMap: stopped during garbage collection',
      'Secret: not finished',
    ]);
    expect(errors.errors).toEqual([]);
  });
});
