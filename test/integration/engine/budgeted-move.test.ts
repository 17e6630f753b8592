/**
 * A host namespace move under a write budget, on the real tenant + host apiservers: the retirement
 * of the old namespace has a share of the budget like a kind and runs after the kinds, so the new
 * namespace gets copies from the first pass on, and a copy leaves the old namespace only once its
 * replacement exists in the new one (workloads that refer to it never lose it mid-move). A second
 * tenant shares the old namespace: its copies and an unmanaged object are untouched (snapshot).
 */
import { describe, expect, it } from '@jest/globals';
import { lifecycleScenes } from './lifecycle-support.js';
import {
  CONFIGMAP,
  createTenant,
  ensureNamespace,
  listAll,
  pass,
  RUN,
  type Tenant,
  tenantObject,
  useApis,
} from './support.js';

const apis = useApis();
const { snapshot, changes, copiesOf, patchSpec, status } = lifecycleScenes(apis);
const OBJECTS = 50;
const MAX_WRITES = 10;

async function copyNames(t: Tenant, namespace: string): Promise<Set<string>> {
  const objects = await listAll(t.hostApi, CONFIGMAP, namespace);
  return new Set(
    objects.filter((o) => o.metadata.name.endsWith(`-x-${t.name}`)).map((o) => o.metadata.name),
  );
}

describe('a host namespace move under a write budget', () => {
  it('creates in the new namespace before it deletes from the old, copy by copy', async () => {
    const t = await createTenant(apis(), 'bmove');
    const other = await createTenant(apis(), 'bmoveo', { hostNamespace: t.hostNamespace });
    for (let i = 0; i < OBJECTS; i++) {
      await t.tenantApi.create(
        tenantObject(t, CONFIGMAP, t.vns.a, `c${i}`, { data: { i: `${i}` } }),
      );
    }
    await other.tenantApi.create(tenantObject(other, CONFIGMAP, other.vns.a, 'keep', { data: {} }));
    await t.hostApi.create({
      ...CONFIGMAP,
      metadata: { name: `unmanaged-${RUN}`, namespace: t.hostNamespace },
      data: { mine: 'yes' },
    });
    for (const x of [t, other]) expect((await pass(x)).result.errors).toEqual([]);
    const old = t.hostNamespace;
    const next = `${old}-new`;
    await ensureNamespace(t.hostApi, next);
    const before = await snapshot(t);
    expect(copiesOf(before, t)).toHaveLength(OBJECTS);
    await patchSpec(t, { hostNamespace: next });

    let passes = 0;
    let firstCreates = -1;
    while (passes < 20) {
      const { result } = await pass(t, { budget: { maxWrites: MAX_WRITES } });
      passes += 1;
      expect(result.requests.host.writes).toBeLessThanOrEqual(MAX_WRITES);
      const creates = result.decisions.filter((d) => d.action === 'Create').length;
      if (firstCreates < 0) firstCreates = creates;
      const inOld = await copyNames(t, old);
      const inNew = await copyNames(t, next);
      // Every copy gone from the old namespace has its replacement in the new one.
      for (const key of copiesOf(before, t)) {
        const host = key.slice('ConfigMap/'.length);
        if (!inOld.has(host)) expect(inNew.has(host)).toBe(true);
      }
      if (inOld.size === 0 && (await status(t)).hostNamespaces?.toString() === next) break;
    }
    // The first pass already creates its share in the new namespace (half the budget with one
    // kind plus the retirement), instead of spending the budget on deletes.
    expect(firstCreates).toBeGreaterThanOrEqual(MAX_WRITES / 2);
    expect((await copyNames(t, next)).size).toBe(OBJECTS);
    expect((await copyNames(t, old)).size).toBe(0);
    expect((await status(t)).hostNamespaces).toEqual([next]);
    expect(passes).toBeLessThanOrEqual(Math.ceil((2 * OBJECTS) / MAX_WRITES) + 2);

    // Nobody else's object in the old namespace changed.
    const after = await snapshot(t);
    expect(changes(before, after)).toEqual({
      deleted: copiesOf(before, t),
      created: [],
      written: [],
    });
    expect(copiesOf(after, other)).toHaveLength(1);
    const steady = await pass(t);
    expect(steady.result.requests.host.writes).toBe(0);
    // Some twenty budgeted passes over 100 copies: on a loaded 2-core machine they take past the
    // default two minutes.
  }, 300_000);
});
