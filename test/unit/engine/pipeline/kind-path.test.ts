import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { resumableDeletes } from '../../../../lib/engine/gc/delete-guard.js';
import { runPass } from '../../../../lib/engine/pass/pass.js';
import { jitteredResyncMs, resyncMs } from '../../../../lib/engine/tenant/resume-point.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hostSummary,
  TENANT,
} from '../support.js';

const SPEC = {
  toHost: [{ apiVersion: 'v1', kind: 'ConfigMap', exclude: { labelSelector: 'sync=off' } }],
};

type Op =
  | { op: 'put'; ns: string; name: string; value: string; off: boolean }
  | { op: 'delete'; ns: string; name: string }
  | { op: 'exclude'; ns: string | undefined };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    ns: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('x', 'y', 'z'),
    value: fc.constantFrom('1', '2'),
    off: fc.boolean(),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    ns: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('x', 'y', 'z'),
  }),
  fc.record({ op: fc.constant('exclude' as const), ns: fc.constantFrom('a', undefined) }),
);

function apply(world: { tenantApi: MemoryCluster; hostApi: MemoryCluster }, change: Op): void {
  if (change.op === 'exclude') {
    const tc = world.hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    const exclude = {
      labelSelector: 'sync=off',
      ...(change.ns ? { namespaces: [change.ns] } : {}),
    };
    world.hostApi.replace({
      ...tc,
      spec: { ...(tc.spec as object), toHost: [{ ...CONFIGMAP, exclude }] },
    });
    return;
  }
  const existing = world.tenantApi.peek(CONFIGMAP, change.ns, change.name);
  if (change.op === 'delete') {
    world.tenantApi.remove(CONFIGMAP, change.ns, change.name);
    return;
  }
  const labels: Record<string, string> = change.off ? { sync: 'off' } : {};
  const object = cm(change.ns, change.name, { v: change.value }, { labels });
  if (existing) object.metadata.uid = existing.metadata.uid;
  world.tenantApi.replace(object);
}

describe('incremental passes', () => {
  it('decide exactly as full passes after random tenant changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        async (rounds) => {
          const inc = clusters([], [], SPEC);
          const full = clusters([], [], SPEC);
          await runPass({ tenant: TENANT, ...inc });
          await runPass({ tenant: TENANT, ...full, path: 'full-only' });
          for (const round of rounds) {
            for (const change of round) {
              apply(inc, change);
              apply(full, change);
            }
            const a = await runPass({ tenant: TENANT, ...inc });
            const b = await runPass({ tenant: TENANT, ...full, path: 'full-only' });
            expect(b.path).toBe('full');
            expect(decisionLines(a.decisions)).toEqual(decisionLines(b.decisions));
            expect(hostSummary(inc.hostApi)).toEqual(hostSummary(full.hostApi));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a quiet tenant resumes: no host LIST, no writes', async () => {
    const world = clusters([cm('a', 'x')], [], SPEC);
    await runPass({ tenant: TENANT, ...world });
    await runPass({ tenant: TENANT, ...world });
    const listsBefore = world.hostApi.callsOf('list').length;
    const writesBefore = world.hostApi.requestCount().writes;
    const quiet = await runPass({ tenant: TENANT, ...world });
    expect(quiet.path).toBe('resumed');
    expect(world.hostApi.callsOf('list').length).toBe(listsBefore);
    expect(world.hostApi.requestCount().writes).toBe(writesBefore);
    expect(quiet.decisions).toEqual([]);
  });

  it('falls back to a full pass when the stored resourceVersion is too old', async () => {
    const world = clusters([cm('a', 'x')], [], SPEC, { tenant: { watchLogSize: 2 } });
    await runPass({ tenant: TENANT, ...world });
    await runPass({ tenant: TENANT, ...world });
    for (const v of ['1', '2', '3']) world.tenantApi.replace(cm('b', 'y', { v }));
    const fallback = await runPass({ tenant: TENANT, ...world });
    expect(fallback.path).toBe('full');
    expect(fallback.pathReason).toMatch(/410/);
    expect(decisionLines(fallback.decisions)).toEqual([
      `Create ConfigMap b/y -> y-x-b-x-${TENANT}`,
    ]);
    const stored = world.hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as {
      lastPass?: { path?: string };
    };
    expect(stored.lastPass?.path).toBe('full');
  });

  it("falls back to a full pass when a deletion does not match its copy's virtual uid", async () => {
    const world = clusters([cm('a', 'x')], [], SPEC);
    await runPass({ tenant: TENANT, ...world });
    await runPass({ tenant: TENANT, ...world });
    // As after an etcd restore: the copy was made from another incarnation of a/x.
    const copy = world.hostApi.peek(CONFIGMAP, HOST_NS, `x-x-a-x-${TENANT}`) as KubeObject;
    const annotations = { ...copy.metadata.annotations, 'tenantplane.io/virtual-uid': 'other-uid' };
    world.hostApi.replace({ ...copy, metadata: { ...copy.metadata, annotations } });
    world.tenantApi.remove(CONFIGMAP, 'a', 'x');
    const next = await runPass({ tenant: TENANT, ...world });
    expect(next.path).toBe('full');
    expect(next.pathReason).toMatch(/made from uid other-uid: the tenant cluster's history/);
    expect(decisionLines(next.decisions)).toEqual([`Delete ConfigMap a/x -> x-x-a-x-${TENANT}`]);
  });

  it('is on by default, off with incremental: false, and full when asked', async () => {
    const world = clusters([cm('a', 'x')], [], SPEC);
    await runPass({ tenant: TENANT, ...world });
    await runPass({ tenant: TENANT, ...world });
    const byDefault = await runPass({ tenant: TENANT, ...world });
    expect(byDefault.path).toBe('resumed');
    const off = await runPass({ tenant: TENANT, ...world, path: 'full-only' });
    expect(off.path).toBe('full');
    const asked = await runPass({ tenant: TENANT, ...world, path: 'full' });
    expect(asked.pathReason).toMatch(/asked for/);
    expect(
      world.hostApi.objects(CONFIGMAP).filter((o) => o.metadata.namespace === HOST_NS),
    ).toHaveLength(1);
  });

  it('settled writes keep the resume point; a write the host stored otherwise makes the next pass full', async () => {
    const plain = clusters([cm('a', 'x')], [], SPEC);
    expect((await runPass({ tenant: TENANT, ...plain })).counts.Create).toBe(1);
    expect((await runPass({ tenant: TENANT, ...plain })).path).toBe('resumed');
    plain.tenantApi.replace(cm('a', 'x', { v: '2' }));
    const changed = await runPass({ tenant: TENANT, ...plain });
    expect([changed.path, changed.counts.Update]).toEqual(['resumed', 1]);
    expect((await runPass({ tenant: TENANT, ...plain })).path).toBe('resumed');

    const rewriting = clusters([cm('a', 'x', { k: 'v', drop: 'x' })], [], SPEC, {
      host: {
        normalize: (o) => {
          if (o.kind === 'ConfigMap' && o.data) delete (o.data as Record<string, string>).drop;
        },
      },
    });
    expect((await runPass({ tenant: TENANT, ...rewriting })).counts.Create).toBe(1);
    // The host dropped a key of the create: a full pass records that (one update), as it would
    // have without resume points.
    const recorded = await runPass({ tenant: TENANT, ...rewriting });
    expect([recorded.path, recorded.pathReason, recorded.counts.Update]).toEqual([
      'full',
      'ConfigMap: no resume point stored yet',
      1,
    ]);
    const quiet = await runPass({ tenant: TENANT, ...rewriting });
    expect([quiet.path, quiet.decisions]).toEqual(['resumed', []]);
  });

  it('resync periods and the deletion bound', () => {
    expect(resyncMs({ resync: '30m' })).toBe(1_800_000);
    expect(resyncMs({ resync: 'soon' })).toBe(3_600_000);
    const j = jitteredResyncMs('dev', 3_600_000);
    expect(j).toBeGreaterThanOrEqual(3_240_000);
    expect(j).toBeLessThanOrEqual(3_960_000);
    expect(resumableDeletes({ maxPercent: 50, minCopies: 20 })).toBe(10);
  });
});
