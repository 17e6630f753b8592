/**
 * A converged tenant writes nothing, a persistent Skip included: the digest of a pass's Skips, the
 * rule that compares it with the recorded pass, and passes that prove it.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { actedBeyondRecordedSkips, skipDigest } from '../../../../lib/engine/report/skip-digest.js';
import { statusReportDue } from '../../../../lib/engine/report/status-report.js';
import type { Decision, KubeObject } from '../../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hn, TENANT } from '../support.js';

const skip = (name: string, reason = 'occupied'): Decision => ({
  action: 'Skip',
  tenant: TENANT,
  kind: 'ConfigMap',
  apiVersion: 'v1',
  tenantRef: { namespace: 'default', name },
  hostRef: { namespace: HOST_NS, name: hn('default', name) },
  reason,
  passId: 'p',
  dryRun: false,
});

describe('skipDigest', () => {
  it('is null without Skips, and independent of order and pass', () => {
    expect(skipDigest([])).toBeNull();
    expect(skipDigest([{ ...skip('a'), action: 'Create' }])).toBeNull();
    const one = skipDigest([skip('a'), skip('b')]);
    expect(skipDigest([{ ...skip('b'), passId: 'other' }, skip('a')])).toBe(one);
    expect(skipDigest([skip('a'), skip('b', 'another reason')])).not.toBe(one);
    expect(skipDigest([skip('a')])).not.toBe(one);
  });
});

describe('actedBeyondRecordedSkips', () => {
  const counts = (c: Record<string, number>) => ({
    counts: { create: 0, update: 0, delete: 0, skip: 0, alreadyGone: 0, ...c },
  });
  const cases: Array<{
    name: string;
    previous: Record<string, unknown>;
    next: Record<string, unknown>;
    expected: boolean;
  }> = [
    { name: 'nothing decided', previous: {}, next: counts({}), expected: false },
    { name: 'a create', previous: {}, next: counts({ create: 1 }), expected: true },
    {
      name: 'an already-gone delete',
      previous: {},
      next: counts({ alreadyGone: 1 }),
      expected: true,
    },
    {
      name: 'a failed write',
      previous: {},
      next: { ...counts({}), failedCount: 1 },
      expected: true,
    },
    {
      name: 'the recorded Skips again',
      previous: { skipDigest: 'd1' },
      next: { ...counts({ skip: 2 }), skipDigest: 'd1' },
      expected: false,
    },
    {
      name: 'other Skips',
      previous: { skipDigest: 'd1' },
      next: { ...counts({ skip: 2 }), skipDigest: 'd2' },
      expected: true,
    },
    {
      name: 'Skips where none were recorded',
      previous: {},
      next: { ...counts({ skip: 1 }), skipDigest: 'd1' },
      expected: true,
    },
    {
      name: 'the recorded Skips and an update',
      previous: { skipDigest: 'd1' },
      next: { ...counts({ skip: 1, update: 1 }), skipDigest: 'd1' },
      expected: true,
    },
  ];
  it.each(cases)('$name: $expected', ({ previous, next, expected }) => {
    expect(actedBeyondRecordedSkips(previous, next)).toBe(expected);
  });

  it('statusReportDue follows it', () => {
    const now = Date.parse('2030-01-01T00:05:00Z');
    const previous = {
      finishedAt: '2030-01-01T00:00:00Z',
      complete: true,
      errorCount: 0,
      errors: [],
      skipDigest: 'd1',
    };
    const next = { ...previous, counts: { skip: 1 }, skipDigest: 'd1' };
    expect(statusReportDue(previous, next, now)).toBe(false);
    expect(statusReportDue(previous, { ...next, skipDigest: 'd2' }, now)).toBe(true);
    // Still refreshed once it is old.
    expect(statusReportDue(previous, next, now + 10 * 60_000)).toBe(true);
  });
});

describe('a persistent Skip', () => {
  it('writes status once; the same Skip on later passes writes nothing at all', async () => {
    const foreign: KubeObject = {
      ...CONFIGMAP,
      metadata: { namespace: HOST_NS, name: hn('default', 'taken') },
      data: { owner: 'someone else' },
    };
    const now = { t: Date.parse('2030-01-01T00:00:00Z') };
    const clock = { now: () => now.t };
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'taken'), cm('default', 'free')],
      [foreign],
      { toHost: [CONFIGMAP] },
    );
    const first = await runPass({ tenant: TENANT, tenantApi, hostApi, clock });
    expect(first.counts).toEqual({ Create: 1, Update: 0, Delete: 0, Skip: 1 });
    expect(first.statusWritten).toBe(true);
    const tc = () => hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.metadata.resourceVersion;
    const recorded = tc();
    const writes = hostApi.requestCount().writes;
    for (let i = 0; i < 3; i++) {
      now.t += 60_000;
      const again = await runPass({ tenant: TENANT, tenantApi, hostApi, clock });
      expect(again.counts).toEqual({ Create: 0, Update: 0, Delete: 0, Skip: 1 });
      expect(again.statusWritten).toBe(false);
      expect(hostApi.requestCount().writes).toBe(writes);
    }
    expect(tc()).toBe(recorded);
  });
});
