/**
 * Finding 9 of issue 20: the resumed path is bounded. It holds only the latest change of each
 * object, drops changes outside the rule's static scope before any host read, and falls back to
 * the full pass past a budget of changed objects or bytes.
 */
import { describe, expect, it } from '@jest/globals';
import {
  ChangeWindow,
  MAX_RESUMED_BYTES,
  MAX_RESUMED_CHANGES,
} from '../../../../lib/engine/listing/change-window.js';
import { TenantLister } from '../../../../lib/engine/listing/tenant-listing.js';
import { runPass } from '../../../../lib/engine/pass/pass.js';
import { compileKindRule } from '../../../../lib/engine/policy/scope.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, cm, HOST_NS, TENANT } from '../support.js';

const RULE = { ...CONFIGMAP, exclude: { namespaces: ['noisy'], names: ['scratch'] } };
const SPEC = { toHost: [RULE] };
const MIB = 1024 * 1024;

/** Two passes: the second stores a point the third resumes from. */
async function converged(world: ReturnType<typeof clusters>): Promise<void> {
  await runPass({ tenant: TENANT, ...world });
  expect((await runPass({ tenant: TENANT, ...world })).path).toBe('resumed');
}

const configMapGets = (api: MemoryCluster) =>
  api.callsOf('get').filter((c) => c.kind === CONFIGMAP.kind).length;

describe('a resumed pass stays bounded', () => {
  it.each([
    {
      name: '1,500 changes in an excluded namespace cost no host read',
      change: (tenant: MemoryCluster) => {
        for (let i = 0; i < 1500; i++) tenant.replace(cm('noisy', `n-${i}`, { v: `${i}` }));
      },
      gets: 0,
      path: 'resumed',
      reason: undefined,
    },
    {
      name: 'changes of an excluded name and a system namespace cost no host read',
      change: (tenant: MemoryCluster) => {
        for (let i = 0; i < 50; i++) tenant.replace(cm('a', 'scratch', { v: `${i}` }));
        for (let i = 0; i < 50; i++) tenant.replace(cm('kube-system', `k-${i}`));
      },
      gets: 0,
      path: 'resumed',
      reason: undefined,
    },
    {
      name: '300 rewrites of one object hold one change: one host read',
      change: (tenant: MemoryCluster) => {
        for (let i = 0; i < 300; i++) tenant.replace(cm('a', 'x', { v: `${i}` }));
      },
      gets: 1,
      path: 'resumed',
      reason: undefined,
    },
    {
      name: 'more changed objects than the budget fall back to the full pass',
      change: (tenant: MemoryCluster) => {
        for (let i = 0; i <= MAX_RESUMED_CHANGES; i++) tenant.replace(cm('b', `c-${i}`));
      },
      gets: 0,
      path: 'full',
      reason: `ConfigMap: more than ${MAX_RESUMED_CHANGES} objects of the kind changed since the resume point, the resumed path's bound`,
    },
    {
      name: 'more bytes of changes than the budget fall back to the full pass',
      change: (tenant: MemoryCluster) => {
        const payload = 'x'.repeat(MIB);
        const count = Math.ceil(MAX_RESUMED_BYTES / MIB) + 1;
        for (let i = 0; i < count; i++) tenant.replace(cm('b', `big-${i}`, { payload }));
      },
      gets: 0,
      path: 'full',
      reason: `ConfigMap: the changes since the resume point hold more than ${MAX_RESUMED_BYTES / MIB} MiB, the resumed path's bound`,
    },
  ])(
    '$name',
    async ({ change, gets, path, reason }) => {
      const world = clusters([cm('a', 'x')], [], SPEC, { tenant: { watchLogSize: 5000 } });
      await converged(world);
      const before = configMapGets(world.hostApi);
      change(world.tenantApi);
      const result = await runPass({ tenant: TENANT, ...world });
      expect([result.path, result.pathReason]).toEqual([path, reason]);
      expect(configMapGets(world.hostApi) - before).toBe(gets);
      expect(result.complete).toBe(true);
    },
    60_000,
  );
});

describe('TenantLister.watch through its change window', () => {
  it('holds the latest change of each object in scope, and counts every change', async () => {
    const tenant = new MemoryCluster('tenant', { watchLogSize: 5000 }).seed(cm('a', 'x'));
    const from = tenant.currentResourceVersion();
    for (let i = 0; i < 300; i++) tenant.replace(cm('a', 'x', { v: `${i}` }));
    for (let i = 0; i < 20; i++) tenant.replace(cm('noisy', `n-${i}`));
    tenant.remove(CONFIGMAP, 'a', 'x');
    tenant.replace(cm('a', 'x', { v: 'again' }));
    const watched = await new TenantLister(tenant, 500).watch(RULE, from);
    if (!watched.resumed) throw new Error(watched.reason);
    expect(watched.seen).toBe(322);
    expect(watched.changes.map((c) => [c.type, c.object.data])).toEqual([
      ['ADDED', { v: 'again' }],
    ]);
  });

  it('stops the watch at once past its budget', async () => {
    const tenant = new MemoryCluster('tenant').seed(cm('a', 'x'));
    const from = tenant.currentResourceVersion();
    for (let i = 0; i < 5; i++) tenant.replace(cm('a', `y-${i}`));
    const lister = new TenantLister(tenant, 500, { changes: 3, bytes: MIB });
    expect(await lister.watch(CONFIGMAP, from)).toEqual({
      resumed: false,
      reason:
        "more than 3 objects of the kind changed since the resume point, the resumed path's bound",
      bounded: true,
    });
  });

  it('weighs a rewrite once: the window holds the latest bytes only', () => {
    const window = new ChangeWindow(compileKindRule(CONFIGMAP), { changes: 10, bytes: MIB });
    const change = { type: 'MODIFIED' as const, object: cm('a', 'x') };
    for (let i = 0; i < 100; i++) expect(window.take(change, 600 * 1024)).toBeUndefined();
    expect(window.take({ ...change, object: cm('a', 'y') }, 600 * 1024)).toMatch(/more than 1 MiB/);
  });
});

// Finding 7 of issue 20: a copy a host finalizer holds in deletion while its source changes.
describe('a terminating host copy whose source changed', () => {
  it.each([
    { name: 'a resumed pass', path: undefined },
    { name: 'a full pass', path: 'full' as const },
  ])('holds back the resume point on $name and is counted once', async ({ path }) => {
    const world = clusters([cm('a', 'x')], [], SPEC);
    await converged(world);
    const copy = world.hostApi.objects(CONFIGMAP).find((o) => o.metadata.namespace === HOST_NS);
    if (!copy) throw new Error('no copy');
    world.hostApi.replace({
      ...copy,
      metadata: {
        ...copy.metadata,
        deletionTimestamp: '2030-01-01T00:00:00Z',
        finalizers: ['host/hold'],
      },
    });
    world.tenantApi.replace(cm('a', 'x', { v: '2' }));

    const held = await runPass({ tenant: TENANT, ...world, ...(path ? { path } : {}) });
    expect([held.terminating, held.counts.Create, held.counts.Update]).toEqual([1, 0, 0]);

    // The host lets the copy go: the next pass is full (no point) and creates it anew.
    world.hostApi.remove(CONFIGMAP, HOST_NS, copy.metadata.name);
    const after = await runPass({ tenant: TENANT, ...world });
    expect([after.path, after.counts.Create]).toEqual(['full', 1]);
    expect(world.hostApi.peek(CONFIGMAP, HOST_NS, copy.metadata.name)?.data).toEqual({ v: '2' });
  });
});
