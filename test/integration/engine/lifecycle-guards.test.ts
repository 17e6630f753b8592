/**
 * The lifecycle's guards on the real clusters, each in a host namespace shared with a second
 * tenant and an unmanaged object: a policy changed underneath a running pass stops it before GC;
 * a tenant list item that claims another kind than its rule is never written; the mass-delete
 * guard and terminating copies leave everyone else's objects alone.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../lib/engine/index.js';
import type {
  ClusterApi,
  KindRef,
  KubeObject,
  ListOptions,
  WatchChange,
  WatchOptions,
} from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { lifecycleScenes } from './lifecycle-support.js';
import { CONFIGMAP, SECRET, tenantObject, useApis } from './support.js';

const apis = useApis();
const { scene, snapshot, changes, copiesOf, patchSpec, annotate } = lifecycleScenes(apis);

/** A real client with one hook: what runs just before the n-th GET of the TenantCluster. */
function onTenantClusterGet(api: ClusterApi, n: number, hook: () => Promise<void>): ClusterApi {
  let gets = 0;
  return Object.assign(Object.create(api) as ClusterApi, {
    async get(kind: KindRef, namespace: string | undefined, name: string) {
      if (kind.kind === TENANT_CLUSTER.kind && ++gets === n) await hook();
      return api.get(kind, namespace, name);
    },
  });
}

/** A real tenant client whose listings rewrite the kind of one item (as an aggregated API might). */
function lyingTenant(api: ClusterApi, name: string, claimed: KindRef): ClusterApi {
  return Object.assign(Object.create(api) as ClusterApi, {
    async list(kind: KindRef, options?: ListOptions) {
      const page = await api.list(kind, options);
      const items = page.items.map((o: KubeObject) =>
        o.metadata.name === name ? { ...o, ...claimed } : o,
      );
      return { ...page, items };
    },
    // The same lie in a resumed watch's changes, streamed (`take`) or returned.
    async watchChanges(kind: KindRef, options: WatchOptions) {
      const lie = (c: WatchChange): WatchChange =>
        c.object.metadata.name === name ? { ...c, object: { ...c.object, ...claimed } } : c;
      const { take } = options;
      const outcome = await (api.watchChanges as NonNullable<ClusterApi['watchChanges']>).call(
        api,
        kind,
        take
          ? { ...options, take: (c: WatchChange, bytes: number | undefined) => take(lie(c), bytes) }
          : options,
      );
      if (!outcome.resumed) return outcome;
      return { ...outcome, changes: outcome.changes.map(lie) };
    },
  });
}

describe('lifecycle guards on the real clusters', () => {
  it('a policy changed during the pass stops it before garbage collection', async () => {
    const { t, other } = await scene('midpass');
    const source = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'a');
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'a', { uid: source?.metadata.uid as string });
    const before = await snapshot(t);
    // GET 1 reads the policy; GET 2 is GC's re-read: the operator pauses the tenant in between.
    const hostApi = onTenantClusterGet(t.hostApi, 2, () => patchSpec(t, { paused: true }));
    const result = await runPass({ tenant: t.name, tenantApi: t.tenantApi, hostApi });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/changed during the pass/);
    expect(result.decisions.filter((d) => d.action === 'Delete')).toEqual([]);
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
    expect(copiesOf(await snapshot(t), other)).toHaveLength(1);

    await patchSpec(t, { paused: false });
    const next = await runPass({ tenant: t.name, tenantApi: t.tenantApi, hostApi: t.hostApi });
    expect(next.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)).toEqual([
      'Delete ConfigMap a',
    ]);
  });

  it('a listed item that claims another kind than its rule is an error, never a write', async () => {
    const { t, other } = await scene('liar');
    await t.tenantApi.create(tenantObject(t, CONFIGMAP, t.vns.a, 'fake', { data: { k: 'x' } }));
    const before = await snapshot(t);
    const tenantApi = lyingTenant(t.tenantApi, 'fake', { apiVersion: 'v1', kind: 'Secret' });
    const result = await runPass({ tenant: t.name, tenantApi, hostApi: t.hostApi });
    expect(result.errors.map((e) => e.message)).toEqual([
      'the tenant listing of ConfigMap (v1) returned an item that claims to be Secret (v1); it was not synced',
    ]);
    expect(result.decisions).toEqual([]);
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
    expect(copiesOf(await snapshot(t), other)).toHaveLength(1);
  });

  it('the mass-delete guard leaves the other tenant and the unmanaged object alone throughout', async () => {
    const { t, other } = await scene('guard2');
    await patchSpec(t, { deleteGuard: { maxPercent: 10, minCopies: 2 } });
    const before = await snapshot(t);
    for (const kind of [CONFIGMAP, SECRET]) {
      const s = await t.tenantApi.get(kind, t.vns.a, 'a');
      await t.tenantApi.delete(kind, t.vns.a, 'a', { uid: s?.metadata.uid as string });
    }
    const held = await runPass({ tenant: t.name, tenantApi: t.tenantApi, hostApi: t.hostApi });
    expect(held.complete).toBe(false);
    expect(held.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard', 'MassDeleteGuard']);
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
    const tokens = [...(held.incompleteReason ?? '').matchAll(/confirm-deletes=(\w+:[0-9a-f]+)/g)]
      .map((m) => m[1])
      .join(',');
    await annotate(t, 'tenantplane.io/confirm-deletes', tokens);
    const done = await runPass({ tenant: t.name, tenantApi: t.tenantApi, hostApi: t.hostApi });
    expect(done.complete).toBe(true);
    const after = await snapshot(t);
    const deleted = changes(before, after).deleted;
    expect(deleted).toHaveLength(2);
    for (const key of deleted)
      expect(key).toMatch(new RegExp(`^(ConfigMap|Secret)/a-x-.*-x-${t.name}$`));
    expect(copiesOf(after, other)).toHaveLength(1);
    expect(copiesOf(after, other, 'Secret')).toHaveLength(1);
    expect([...after.keys()].some((k) => k.startsWith('ConfigMap/unmanaged-'))).toBe(true);
  });
});
