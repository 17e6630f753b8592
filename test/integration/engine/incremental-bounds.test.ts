/**
 * Issue 20, findings 9 and 7, on the real clusters. A resumed pass holds only the latest change
 * of each object and drops changes outside the rule's static scope before any host read (1,500
 * changes in an excluded namespace cost no host GET; before, 1,503 host reads), and a copy a host
 * finalizer holds in deletion while its source changes holds back the resume point, so the copy
 * is created anew once the host lets it go.
 */
import { describe, expect, it } from '@jest/globals';
import { runPool } from '../../../lib/common/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  hostObjects,
  pass,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  useApis,
} from './support.js';

const apis = useApis();

/** Excludes the tenant's namespace `b` by name, on top of the tenant's label selector. */
async function excludeNamespaceB(t: Tenant): Promise<void> {
  const tc = await tenantClusterObject(t);
  const spec = tc.spec as { toHost: { exclude: Record<string, unknown> }[] };
  const toHost = spec.toHost.map((r) => ({
    ...r,
    exclude: { ...r.exclude, namespaces: [t.vns.b] },
  }));
  await t.hostApi.update({ ...tc, spec: { ...spec, toHost } });
}

/** Rewrites a tenant ConfigMap `times` times, one after the other. */
async function rewrite(t: Tenant, namespace: string, name: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const current = (await t.tenantApi.get(CONFIGMAP, namespace, name)) as KubeObject;
    await t.tenantApi.update({ ...current, data: { v: `${i}` } });
  }
}

describe('the resumed path stays bounded', () => {
  it('1,500 changes in an excluded namespace cost no host read; 300 rewrites cost one', async () => {
    const t = await createTenant(apis(), 'incbound');
    await excludeNamespaceB(t);
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'x'));
    await pass(t);
    expect((await pass(t)).result.path).toBe('resumed');

    const noisy = Array.from({ length: 1500 }, (_, i) => i);
    await runPool(noisy, 20, async (i) => {
      await t.tenantApi.create(tenantConfigMap(t, t.vns.b, `n-${i}`));
    });
    const before = t.hostApi.requestCount().reads;
    const quiet = (await pass(t)).result;
    expect([quiet.path, quiet.counts.Create, quiet.counts.Update]).toEqual(['resumed', 0, 0]);
    // The TenantCluster read and the lease's bookkeeping, no copy GET (before: 1,503 reads).
    expect(t.hostApi.requestCount().reads - before).toBeLessThan(10);

    await rewrite(t, t.vns.a, 'x', 300);
    const rewritten = (await pass(t)).result;
    expect([rewritten.path, rewritten.counts.Update]).toEqual(['resumed', 1]);
    const copies = await hostObjects(t);
    expect(copies.map((c) => c.data)).toEqual([{ v: '299' }]);
  }, 300_000);

  it('a terminating copy whose source changed holds back the resume point', async () => {
    const t = await createTenant(apis(), 'incterm');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'x'));
    await pass(t);
    expect((await pass(t)).result.path).toBe('resumed');
    const [copy] = await hostObjects(t);
    if (!copy) throw new Error('no copy');
    const { name } = copy.metadata;
    // A host finalizer holds the copy in deletion.
    await t.hostApi.update({
      ...copy,
      metadata: { ...copy.metadata, finalizers: ['example.com/hold'] },
    });
    const held = (await t.hostApi.get(CONFIGMAP, t.hostNamespace, name)) as KubeObject;
    await t.hostApi.delete(CONFIGMAP, t.hostNamespace, name, { uid: held.metadata.uid ?? '' });
    await rewrite(t, t.vns.a, 'x', 1);

    const terminating = (await pass(t)).result;
    expect([terminating.terminating, terminating.counts.Create]).toEqual([1, 0]);
    const tc = await tenantClusterObject(t);
    const resume = (tc.status as { resume?: Record<string, unknown> }).resume ?? {};
    expect(resume['v1/ConfigMap']).toBeUndefined();

    // The host lets it go: the next pass is full and creates the copy anew.
    const gone = (await t.hostApi.get(CONFIGMAP, t.hostNamespace, name)) as KubeObject;
    await t.hostApi.update({ ...gone, metadata: { ...gone.metadata, finalizers: [] } });
    const after = (await pass(t)).result;
    expect([after.path, after.counts.Create]).toEqual(['full', 1]);
    expect((await hostObjects(t)).map((c) => c.data)).toEqual([{ v: '0' }]);
  }, 300_000);
});
