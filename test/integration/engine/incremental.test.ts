/**
 * Incremental (resumed) passes on the real clusters. A quiet tenant costs a handful of requests
 * per kind and no host read; a seeded random sequence of tenant changes (creates, updates,
 * deletes, recreations, objects moving in and out of scope, a new namespace filled and emptied,
 * policy exclusion changes) gives, at every step, the same Decisions from a resumed pass and from
 * a full pass of the very same state (both dry runs), the real resumed pass then decides exactly
 * that, and a full pass afterwards finds nothing left to do; a stored resourceVersion that does
 * not parse or lies ahead of the cluster falls back to the full path in the same pass.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../lib/engine/index.js';
import type { Decision, KubeObject, PassResult } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  ensureNamespace,
  hostObjects,
  LABEL,
  listAll,
  TENANT_CLUSTER,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  useApis,
} from './support.js';

const apis = useApis();

const run = (t: Tenant, { full, ...options }: { dryRun?: boolean; full?: boolean } = {}) =>
  runPass({
    tenant: t.name,
    tenantApi: t.tenantApi,
    hostApi: t.hostApi,
    ...options,
    path: full ? 'full' : 'auto',
  });

/** A Decision without what differs between two passes of the same state. */
function comparable(decisions: readonly Decision[]): string[] {
  return decisions
    .map((d) => `${d.action} ${d.tenantRef.namespace}/${d.tenantRef.name} ${d.reason}`)
    .sort();
}

/** The host copies by name: their data and labels (what a sync decides). */
async function hostState(t: Tenant): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const o of await hostObjects(t)) {
    state[o.metadata.name] = JSON.stringify([o.data ?? {}, o.metadata.labels ?? {}]);
  }
  return state;
}

/** A small seeded PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function setExclusion(t: Tenant, extra: string | undefined): Promise<void> {
  const tc = await tenantClusterObject(t);
  const selector = `${LABEL}!=${t.name}${extra ? `,${extra}` : ''}`;
  const spec = tc.spec as { toHost: { exclude: { labelSelector: string } }[] };
  for (const rule of spec.toHost) rule.exclude.labelSelector = selector;
  await t.hostApi.update({ ...TENANT_CLUSTER, ...tc, spec });
}

async function storeResourceVersion(t: Tenant, resourceVersion: string): Promise<void> {
  const tc = await tenantClusterObject(t);
  const resume = (tc.status as { resume: Record<string, Record<string, string>> }).resume;
  const key = 'v1/ConfigMap';
  expect(resume[key]).toBeDefined();
  await t.hostApi.patchStatus(TENANT_CLUSTER, undefined, t.name, {
    resume: { [key]: { ...resume[key], resourceVersion } },
  });
}

describe('incremental passes on the real clusters', () => {
  it('a quiet tenant resumes with at most 3 tenant requests per kind and no host listing', async () => {
    const t = await createTenant(apis(), 'inc-quiet');
    for (let i = 0; i < 30; i++) {
      await t.tenantApi.create(tenantConfigMap(t, t.vns.a, `cm-${i}`, { i: String(i) }));
    }
    const first = await run(t);
    expect(first.counts.Create).toBe(30);
    const before = await hostObjects(t);
    const quiet: PassResult[] = [];
    for (let i = 0; i < 3; i++) quiet.push(await run(t));
    for (const result of quiet) {
      expect(result.path).toBe('resumed');
      expect(result.decisions).toEqual([]);
      expect(result.requests.host.writes).toBe(0);
      // The TenantCluster read (and at most the tenant identity read on the tenant side).
      expect(result.requests.host.reads).toBeLessThanOrEqual(1);
      expect(result.requests.tenant.reads).toBeLessThanOrEqual(1 + 3);
    }
    console.log(
      `[incremental] quiet pass: ${quiet.map((r) => `${r.requests.tenant.reads} tenant + ${r.requests.host.reads} host reads, ${r.durationMs} ms`).join('; ')}`,
    );
    const after = await hostObjects(t);
    expect(after.map((o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`)).toEqual(
      before.map((o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`),
    );

    // One change: read from the watch, its one host name read by GET, applied.
    await t.tenantApi.update({
      ...((await t.tenantApi.get(CONFIGMAP, t.vns.a, 'cm-7')) as KubeObject),
      data: { i: 'seven' },
    });
    const changed = await run(t);
    expect(changed.path).toBe('resumed');
    expect(changed.counts).toEqual({ Create: 0, Update: 1, Delete: 0, Skip: 0 });
    expect(changed.requests.host.writes).toBe(1); // the copy (the status write comes after)
    const stored = await tenantClusterObject(t);
    const resume = (stored.status as { resume: Record<string, { resourceVersion: string }> })
      .resume['v1/ConfigMap'];
    expect(BigInt(resume?.resourceVersion ?? '0')).toBeGreaterThanOrEqual(
      BigInt(
        ((await t.tenantApi.get(CONFIGMAP, t.vns.a, 'cm-7')) as KubeObject).metadata
          .resourceVersion as string,
      ),
    );
    expect(await run(t)).toMatchObject({ path: 'resumed', decisions: [] });
  }, 120_000);

  it('a resumed pass and a full pass of the same state decide the same, step after step', async () => {
    const t = await createTenant(apis(), 'inc-diff');
    const seed = Number(process.env.INCREMENTAL_SEED ?? Date.now() % 100_000);
    console.log(`[incremental] differential seed ${seed} (INCREMENTAL_SEED=${seed} replays it)`);
    const random = prng(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const churn = `${t.name}-c`;
    await ensureNamespace(t.tenantApi, churn);
    const namespaces = [t.vns.a, t.vns.b, churn];
    const live = new Map<string, KubeObject>();
    const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
    let serial = 0;

    const create = async (namespace: string, name = `o-${serial++}`, cold = false) => {
      const labels: Record<string, string> = cold ? { tier: 'cold' } : {};
      const made = await t.tenantApi.create(
        tenantConfigMap(t, namespace, name, { v: String(random()) }, { labels }),
      );
      live.set(key(made), made);
    };
    const remove = async (o: KubeObject) => {
      await t.tenantApi.delete(CONFIGMAP, o.metadata.namespace, o.metadata.name, {
        uid: o.metadata.uid as string,
      });
      live.delete(key(o));
    };
    const edit = async (o: KubeObject, change: (o: KubeObject) => KubeObject) => {
      const fresh = (await t.tenantApi.get(CONFIGMAP, o.metadata.namespace, o.metadata.name))!;
      const updated = await t.tenantApi.update(change(fresh));
      live.set(key(updated), updated);
    };
    const steps: Record<string, () => Promise<void>> = {
      creates: async () => {
        for (let i = 0; i < 3; i++) await create(pick(namespaces), undefined, random() < 0.2);
      },
      updates: async () => {
        for (const o of [...live.values()].slice(0, 3)) {
          await edit(o, (f) => ({ ...f, data: { v: String(random()) } }));
        }
      },
      deletes: async () => {
        const all = [...live.values()];
        for (let i = 0; i < 2 && all.length > 0; i++) await remove(all.splice(0, 1)[0]!);
      },
      recreations: async () => {
        const o = pick([...live.values()]);
        if (!o) return;
        await remove(o);
        await create(o.metadata.namespace as string, o.metadata.name);
      },
      'scope changes': async () => {
        const o = pick([...live.values()]);
        if (!o) return;
        const cold = o.metadata.labels?.tier === 'cold';
        await edit(o, (f) => ({
          ...f,
          metadata: {
            ...f.metadata,
            labels: { [LABEL]: t.name, ...(cold ? {} : { tier: 'cold' }) },
          },
        }));
      },
      'namespace emptied': async () => {
        for (const o of [...live.values()]) if (o.metadata.namespace === churn) await remove(o);
      },
    };
    const names = Object.keys(steps);
    let excludeCold = false;
    for (let i = 0; i < 4; i++) await create(pick(namespaces));
    await run(t);
    await run(t); // records the resume point
    let resumedSteps = 0;
    for (let step = 0; step < 14; step++) {
      const policyChange = step % 5 === 4;
      let what: string;
      if (policyChange) {
        excludeCold = !excludeCold;
        await setExclusion(t, excludeCold ? 'tier!=cold' : undefined);
        what = `policy: cold objects ${excludeCold ? 'excluded' : 'included'}`;
      } else {
        what = names[Math.floor(random() * names.length)] as string;
        await steps[what]!();
      }
      const hostBefore = await hostState(t);
      const resumedPlan = await run(t, { dryRun: true });
      const fullPlan = await run(t, { dryRun: true, full: true });
      const context = `step ${step} (${what}), seed ${seed}`;
      expect({ context, decisions: comparable(resumedPlan.decisions) }).toEqual({
        context,
        decisions: comparable(fullPlan.decisions),
      });
      expect(fullPlan.path).toBe('full');
      expect(await hostState(t)).toEqual(hostBefore); // dry runs write nothing

      const real = await run(t);
      expect({ context, decisions: comparable(real.decisions) }).toEqual({
        context,
        decisions: comparable(fullPlan.decisions),
      });
      expect(real.errors).toEqual([]);
      if (real.path === 'resumed') resumedSteps += 1;
      else
        expect({ context, reason: real.pathReason }).toEqual({
          context,
          reason: expect.stringMatching(/policy or the tenant cluster changed|no resume point/),
        });
      const after = await run(t, { dryRun: true, full: true });
      expect({ context, left: comparable(after.decisions) }).toEqual({ context, left: [] });
    }
    // Every non-policy step resumed (a policy step and the one after it may be full).
    expect(resumedSteps).toBeGreaterThanOrEqual(14 - 2 * 3);
    // The host holds exactly the copies of the sources in scope.
    const wanted = [...live.values()].filter(
      (o) => !(excludeCold && o.metadata.labels?.tier === 'cold'),
    );
    expect((await hostObjects(t)).length).toBe(wanted.length);
    const tenantNow = await listAll(t.tenantApi, CONFIGMAP, undefined);
    expect(tenantNow.filter((o) => o.metadata.labels?.[LABEL] === t.name).length).toBe(live.size);
  }, 300_000);

  it('a stored resourceVersion that does not parse or lies ahead of the cluster falls back to a full pass', async () => {
    const t = await createTenant(apis(), 'inc-foreign');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'one'));
    await run(t);
    expect((await run(t)).path).toBe('resumed');
    const hostBefore = (await hostObjects(t)).map(
      (o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`,
    );

    const current = (await t.tenantApi.list(CONFIGMAP, { limit: 1 })).resourceVersion as string;
    await storeResourceVersion(t, String(BigInt(current) * 1000n));
    const foreign = await run(t);
    expect(foreign.path).toBe('full');
    expect(foreign.pathReason).toMatch(/ahead of the cluster's .*another cluster/);
    expect(foreign.decisions).toEqual([]);
    expect((await run(t)).path).toBe('resumed');

    await storeResourceVersion(t, 'not-a-version');
    const garbled = await run(t);
    expect(garbled.path).toBe('full');
    expect(garbled.pathReason).toMatch(/does not parse/);
    expect((await run(t)).path).toBe('resumed');
    const hostAfter = (await hostObjects(t)).map(
      (o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`,
    );
    expect(hostAfter).toEqual(hostBefore);
  }, 120_000);

  it('a deletion that does not fit its copy (another history, as after an etcd restore) falls back to a full pass', async () => {
    const t = await createTenant(apis(), 'inc-history');
    for (const name of ['one', 'two']) await t.tenantApi.create(tenantConfigMap(t, t.vns.a, name));
    await run(t);
    expect((await run(t)).path).toBe('resumed');

    // As after an etcd restore: the copy of one was made from another incarnation of it, and the
    // watch now deletes the incarnation the restored cluster has.
    const copies = await hostObjects(t);
    const copyOfOne = copies.find((o) => o.metadata.name.startsWith('one-')) as KubeObject;
    const other = copies.find((o) => o.metadata.name.startsWith('two-')) as KubeObject;
    const annotations = {
      ...copyOfOne.metadata.annotations,
      'tenantplane.io/virtual-uid': 'other',
    };
    await t.hostApi.update({ ...copyOfOne, metadata: { ...copyOfOne.metadata, annotations } });
    const source = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'one');
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'one', { uid: source?.metadata.uid as string });
    const restored = await run(t);
    expect(restored.path).toBe('full');
    expect(restored.pathReason).toMatch(/made from uid other: the tenant cluster's history/);
    // The full listing decides: the source is gone, so its copy goes; nothing else is touched.
    expect(restored.decisions.map((d) => `${d.action} ${d.tenantRef.name}`)).toEqual([
      'Delete one',
    ]);
    const after = await hostObjects(t);
    expect(after.map((o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`)).toEqual([
      `${other.metadata.uid}@${other.metadata.resourceVersion}`,
    ]);
  }, 120_000);
});
