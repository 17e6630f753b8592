/** Resume points: when a kind may resume, when it must be listed in full, and what is written. */
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_RESYNC_MS,
  jitteredResyncMs,
  policyFingerprint,
  ResumeBook,
  resumeKey,
  resyncMs,
  ruleDigest,
} from '../../../../lib/engine/tenant/resume-point.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, HOST_NS, TENANT, tenantCluster } from '../support.js';

const NOW = Date.parse('2030-01-01T12:00:00Z');
const rule = { ...CONFIGMAP };
/** The fingerprint of the policy `withPoint` stores (the TenantCluster's spec). */
const PRINT = policyFingerprint(tenantCluster({ toHost: [rule] }).spec);
const digest = (clusterId?: string) => ruleDigest(rule, HOST_NS, clusterId, PRINT);

function withPoint(point: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject {
  const tc = tenantCluster({ toHost: [rule], ...spec });
  return { ...tc, status: { ...(tc.status as object), resume: { [resumeKey(rule)]: point } } };
}

function point(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    resourceVersion: '100',
    at: new Date(NOW - 60_000).toISOString(),
    fullAt: new Date(NOW - 10 * 60_000).toISOString(),
    policy: digest(),
    ...overrides,
  };
}

function book(
  tc: KubeObject,
  options: { full?: boolean; canWatch?: boolean; incremental?: boolean } = {},
) {
  return new ResumeBook(tc, HOST_NS, {
    full: options.full ?? false,
    canWatch: options.canWatch ?? true,
    nowMs: () => NOW,
    incremental: options.incremental ?? true,
  });
}

describe('resyncMs and its jitter', () => {
  it.each([
    { spec: {}, expected: DEFAULT_RESYNC_MS },
    { spec: { resync: '30m' }, expected: 30 * 60_000 },
    { spec: { resync: '2h' }, expected: 2 * 3_600_000 },
    { spec: { resync: '0s' }, expected: 1000 },
    { spec: { resync: 'soon' }, expected: DEFAULT_RESYNC_MS },
  ])('$spec -> $expected ms', ({ spec, expected }) => {
    expect(resyncMs(spec)).toBe(expected);
  });

  it('jitters each tenant within 0.9x-1.1x, the same way every time', () => {
    const a = jitteredResyncMs('dev', 60_000);
    expect(a).toBe(jitteredResyncMs('dev', 60_000));
    for (const t of ['dev', 'prod', 'shop', 'billing']) {
      const j = jitteredResyncMs(t, 60_000);
      expect(j).toBeGreaterThanOrEqual(54_000);
      expect(j).toBeLessThanOrEqual(66_000);
    }
  });
});

describe('ResumeBook.plan', () => {
  it.each([
    {
      name: 'off by default: always full, no reason',
      tc: withPoint(point()),
      options: { incremental: false },
      expected: { path: 'full', reason: '' },
    },
    {
      name: 'a full pass asked for',
      tc: withPoint(point()),
      options: { full: true },
      expected: { path: 'full', reason: 'a full pass was asked for' },
    },
    {
      name: 'a client that cannot watch',
      tc: withPoint(point()),
      options: { canWatch: false },
      expected: { path: 'full', reason: 'the tenant client cannot watch' },
    },
    {
      name: 'nothing stored yet',
      tc: tenantCluster({ toHost: [rule] }),
      options: {},
      expected: { path: 'full', reason: 'no resume point stored yet' },
    },
    {
      name: 'the policy changed',
      tc: withPoint(point({ policy: 'other' })),
      options: {},
      expected: {
        path: 'full',
        reason: 'the sync policy or the tenant cluster changed since the resume point',
      },
    },
  ])('$name', ({ tc, options, expected }) => {
    expect(book(tc, options).plan(rule)).toEqual(expected);
  });

  it('resumes from a fresh point', () => {
    const p = point();
    expect(book(withPoint(p)).plan(rule)).toEqual({ resume: p });
  });

  it('resyncs once the jittered period has passed since the last full listing', () => {
    const old = point({ fullAt: new Date(NOW - 2 * 3_600_000).toISOString() });
    const plan = book(withPoint(old)).plan(rule);
    expect(plan).toMatchObject({ path: 'resync' });
  });
});

describe('ResumeBook: objects waiting in the retry memory', () => {
  const retry = {
    ...rule,
    op: 'apply',
    object: 'default/a',
    version: 'd1',
    reason: 'Invalid',
    failures: 1,
    retryAfter: new Date(NOW + 60_000).toISOString(),
  };
  const waiting = (): KubeObject => {
    const tc = withPoint(point());
    return { ...tc, status: { ...(tc.status as object), retries: [retry] } };
  };

  it('list the kind in full, and its new point rides along with a status write made anyway', () => {
    const b = book(waiting());
    const plan = b.plan(rule);
    expect(plan).toMatchObject({ path: 'full', retriesWaiting: true });
    b.listed(rule, '200', plan);
    const fields = b.statusFields([rule]);
    expect(fields.must).toBeUndefined();
    expect(fields.withOthers?.resume?.[resumeKey(rule)]).toMatchObject({ resourceVersion: '200' });
  });

  it('are told by the plan, never by the words of its reason', () => {
    const b = book(waiting());
    b.listed(rule, '200', { path: 'full', reason: 'the resume failed: see the retry memory' });
    expect(b.statusFields([rule]).must).toBeDefined();
  });
});

describe('ResumeBook.statusFields', () => {
  it('writes nothing when incremental passes are off', () => {
    const b = book(tenantCluster({ toHost: [rule] }), { incremental: false });
    b.listed(rule, '200', { path: 'full', reason: '' });
    expect(b.statusFields([rule])).toEqual({});
  });

  it('a first full listing must be written on its own', () => {
    const b = book(tenantCluster({ toHost: [rule] }));
    b.listed(rule, '200', { path: 'full', reason: 'no resume point stored yet' });
    const fields = b.statusFields([rule]);
    expect(fields.must).toEqual({
      resume: {
        [resumeKey(rule)]: {
          resourceVersion: '200',
          at: new Date(NOW).toISOString(),
          fullAt: new Date(NOW).toISOString(),
          policy: digest(),
        },
      },
    });
  });

  it('a quiet resume only rides along with a status write made anyway', () => {
    const p = point();
    const b = book(withPoint(p));
    b.resumed(rule, p as never, '101', 1);
    const fields = b.statusFields([rule]);
    expect(fields.must).toBeUndefined();
    expect(fields.withOthers).toBeDefined();
  });

  it('a kind that left the policy has its point removed', () => {
    const b = book(withPoint(point()));
    expect(b.statusFields([])).toEqual({
      must: { resume: { [resumeKey(rule)]: null } },
      withOthers: { resume: { [resumeKey(rule)]: null } },
    });
  });
});

it('keys and digests name the kind and the policy', () => {
  expect(resumeKey(rule)).toBe('v1/ConfigMap');
  expect(ruleDigest(rule, HOST_NS)).not.toBe(ruleDigest(rule, 'elsewhere'));
  expect(TENANT).toBe('dev');
});

it('a point holds for the tenant cluster it was recorded on, and only for it', () => {
  const tc = withPoint(point({ policy: digest('uid-a') }));
  const same = book(tc);
  same.identify('uid-a');
  expect(same.plan(rule)).toEqual({ resume: expect.objectContaining({ resourceVersion: '100' }) });
  const rebuilt = book(tc);
  rebuilt.identify('uid-b');
  expect(rebuilt.plan(rule)).toEqual({
    path: 'full',
    reason: 'the sync policy or the tenant cluster changed since the resume point',
  });
  // What the full pass records holds for the new identity.
  rebuilt.listed(rule, '200', { path: 'full', reason: '' });
  const written = rebuilt.statusFields([rule]).must?.resume?.[resumeKey(rule)];
  expect(written?.policy).toBe(digest('uid-b'));
});

describe('a point holds for the policy it was recorded under, every field of it', () => {
  const spec = { toHost: [rule], hostNamespace: HOST_NS };
  it.each([
    { field: 'workloads.kubeletGateway', edit: { workloads: { kubeletGateway: { port: 10250 } } } },
    { field: 'workloads.eventsBack', edit: { workloads: { eventsBack: 'All' } } },
    { field: 'deleteGuard', edit: { deleteGuard: { maxPercent: 90 } } },
    { field: 'fromHost', edit: { fromHost: { storageClasses: { names: ['fast'] } } } },
    {
      field: 'toHost (another kind)',
      edit: { toHost: [rule, { apiVersion: 'v1', kind: 'Secret' }] },
    },
  ])('$field: another fingerprint, so the next pass of every kind is full', ({ edit }) => {
    expect(policyFingerprint({ ...spec, ...edit })).not.toBe(policyFingerprint(spec));
    const recorded = ruleDigest(rule, HOST_NS, 'uid-a', policyFingerprint(spec));
    const tc = tenantCluster({ ...spec, ...edit });
    const stored = {
      ...tc,
      status: { resume: { [resumeKey(rule)]: point({ policy: recorded }) } },
    };
    const b = book(stored);
    b.identify('uid-a');
    expect(b.plan(rule)).toEqual({
      path: 'full',
      reason: 'the sync policy or the tenant cluster changed since the resume point',
    });
  });

  it.each([
    { field: 'resync', edit: { resync: '5m' } },
    { field: 'paused', edit: { paused: false } },
  ])('$field says when a pass runs, not what it makes: the same fingerprint', ({ edit }) => {
    expect(policyFingerprint({ ...spec, ...edit })).toBe(policyFingerprint(spec));
  });
});
