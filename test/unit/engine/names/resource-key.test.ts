/**
 * The one key of a kind (group, version, Kind), and what it is for: two rules of the same Kind in
 * different API groups keep separate state wherever the engine keeps state per kind.
 */
import { describe, expect, it } from '@jest/globals';
import { RetryMemory } from '../../../../lib/engine/bounds/retry-backoff.js';
import { restartExpired } from '../../../../lib/engine/listing/expired-listing.js';
import { resourceKey, sameKind } from '../../../../lib/engine/names/resource-key.js';
import { unionKinds } from '../../../../lib/engine/tenant/lifecycle.js';
import {
  policyFingerprint,
  ResumeBook,
  ruleDigest,
} from '../../../../lib/engine/tenant/resume-point.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { HOST_NS, tenantCluster } from '../support.js';

const CORE = { apiVersion: 'v1', kind: 'ConfigMap' };
const CRD = { apiVersion: 'example.com/v1', kind: 'ConfigMap' };
const NOW = Date.parse('2030-01-01T12:00:00Z');

describe('resourceKey', () => {
  it.each([
    { kind: CORE, key: 'v1/ConfigMap' },
    { kind: { apiVersion: 'apps/v1', kind: 'Deployment' }, key: 'apps/v1/Deployment' },
    { kind: CRD, key: 'example.com/v1/ConfigMap' },
  ])('$key', ({ kind, key }) => {
    expect(resourceKey(kind)).toBe(key);
  });

  it('tells kinds of one name in different groups or versions apart', () => {
    expect(resourceKey(CORE)).not.toBe(resourceKey(CRD));
    expect(resourceKey(CORE)).not.toBe(resourceKey({ apiVersion: 'v2', kind: 'ConfigMap' }));
    expect(sameKind(CORE, { ...CORE })).toBe(true);
    expect(sameKind(CORE, CRD)).toBe(false);
  });
});

describe('two rules of one Kind in different API groups keep separate state', () => {
  const denied = new ClusterError('Invalid', 'denied by policy');
  const object = { namespace: 'default', name: 'a' };

  it('in the retry memory: a failure of one is no back-off of the other', () => {
    const memory = new RetryMemory({}, () => NOW);
    memory.failed({ kind: CORE, op: 'apply', object }, 'd1', denied);
    expect(memory.check({ kind: CORE, op: 'apply', object }, 'd1')).toMatchObject({ due: false });
    expect(memory.check({ kind: CRD, op: 'apply', object }, 'd1')).toEqual({ due: true });
    memory.failed({ kind: CRD, op: 'apply', object }, 'd1', denied);
    expect(memory.size).toBe(2);
    // One of them leaving the policy forgets only its own entries.
    memory.retainKinds([CRD]);
    expect(memory.list().map((e) => e.apiVersion)).toEqual(['example.com/v1']);
  });

  it('in the resume points: each has its own point, path and status entry', () => {
    const stored: KubeObject = {
      ...tenantCluster({ toHost: [CORE, CRD] }),
      status: {
        resume: {
          'v1/ConfigMap': {
            resourceVersion: '100',
            at: new Date(NOW - 60_000).toISOString(),
            fullAt: new Date(NOW - 60_000).toISOString(),
            policy: ruleDigest(
              CORE,
              HOST_NS,
              undefined,
              policyFingerprint(tenantCluster({ toHost: [CORE, CRD] }).spec),
            ),
          },
        },
      },
    };
    const book = new ResumeBook(stored, HOST_NS, {
      full: false,
      canWatch: true,
      incremental: true,
      nowMs: () => NOW,
    });
    expect(book.plan(CORE)).toMatchObject({ resume: { resourceVersion: '100' } });
    expect(book.plan(CRD)).toEqual({ path: 'full', reason: 'no resume point stored yet' });

    book.took(CRD, 'full', 'no resume point stored yet');
    book.listed(CRD, '7', { path: 'full', reason: 'no resume point stored yet' });
    book.took(CORE, 'resumed');
    book.resumed(CORE, { resourceVersion: '100', at: '', fullAt: '', policy: '' }, '101', 0);
    // Both kinds' paths count (the Kind names them): the resumed one does not hide the full one.
    expect(book.summary()).toEqual({
      path: 'full',
      reason: 'ConfigMap: no resume point stored yet',
    });
    const resume = book.statusFields([CORE, CRD]).must?.resume ?? {};
    expect(Object.keys(resume).sort()).toEqual(['example.com/v1/ConfigMap', 'v1/ConfigMap']);
    expect(resume['v1/ConfigMap']?.resourceVersion).toBe('101');
    expect(resume['example.com/v1/ConfigMap']?.resourceVersion).toBe('7');

    // A kind leaving the policy removes its own point only.
    expect(book.statusFields([CRD]).must?.resume).toEqual({
      'v1/ConfigMap': null,
      'example.com/v1/ConfigMap': expect.objectContaining({ resourceVersion: '7' }),
    });
  });

  it('in the remembered kinds and the restarts of expired listings', () => {
    expect(unionKinds([CORE], [CRD, { ...CORE }])).toEqual([CORE, CRD]);
    const restarted = new Set<string>();
    const expired = new ClusterError('Expired', 'too old', { status: 410 });
    expect(restartExpired(restarted, CORE, expired)).toBe(true);
    expect(restartExpired(restarted, CRD, expired)).toBe(true);
    expect(() => restartExpired(restarted, CORE, expired)).toThrow(/expired again/);
  });
});
