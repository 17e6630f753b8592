/**
 * Scenes for the lifecycle tests: a tenant sharing its host namespace with a second tenant and an
 * unmanaged object, and snapshots of uid@resourceVersion of everything in that namespace, so a
 * test proves that nothing outside the expected set changed.
 */
import { expect } from '@jest/globals';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import {
  type Apis,
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  listAll,
  pass,
  RUN,
  SECRET,
  type Snapshot,
  type Tenant,
  tenantObject,
} from './support.js';

/** The scene builders and snapshot helpers, bound to the suite's cluster clients. */
export function lifecycleScenes(apis: () => Apis) {
  /** `Kind/name -> uid@resourceVersion` of every ConfigMap and Secret in a host namespace. */
  async function snapshot(t: Tenant, namespace = t.hostNamespace): Promise<Snapshot> {
    const entries: [string, string][] = [];
    for (const kind of [CONFIGMAP, SECRET]) {
      for (const o of await listAll(t.hostApi, kind, namespace)) {
        entries.push([
          `${kind.kind}/${o.metadata.name}`,
          `${o.metadata.uid}@${o.metadata.resourceVersion}`,
        ]);
      }
    }
    return new Map(entries);
  }

  /** What changed between two snapshots: deleted, created and rewritten keys. */
  function changes(before: Snapshot, after: Snapshot) {
    const { deleted, created, changed } = diffSnapshots(before, after);
    return { deleted, created, written: changed };
  }

  /** Keys of `t`'s copies of `kind` in a snapshot. */
  function copiesOf(snap: Snapshot, t: Tenant, kind = 'ConfigMap'): string[] {
    return [...snap.keys()]
      .filter((k) => k.startsWith(`${kind}/`) && k.endsWith(`-x-${t.name}`))
      .sort();
  }

  /**
   * A tenant `base` syncing ConfigMaps and Secrets (two of each), a second tenant sharing its host
   * namespace (one of each), and an unmanaged ConfigMap there.
   */
  async function scene(base: string): Promise<{ t: Tenant; other: Tenant }> {
    const t = await createTenant(apis(), base, { toHost: [CONFIGMAP, SECRET] });
    const other = await createTenant(apis(), `${base}o`, {
      toHost: [CONFIGMAP, SECRET],
      hostNamespace: t.hostNamespace,
    });
    for (const [owner, names] of [
      [t, ['a', 'b']],
      [other, ['a']],
    ] as const) {
      for (const name of names) {
        await owner.tenantApi.create(
          tenantObject(owner, CONFIGMAP, owner.vns.a, name, { data: { k: name } }),
        );
        await owner.tenantApi.create(
          tenantObject(owner, SECRET, owner.vns.a, name, { stringData: { k: name } }),
        );
      }
    }
    await t.hostApi.create({
      ...CONFIGMAP,
      metadata: { name: `unmanaged-${RUN}`, namespace: t.hostNamespace },
      data: { mine: 'yes' },
    });
    for (const x of [t, other]) {
      const { result } = await pass(x);
      expect(result.errors).toEqual([]);
      expect(result.complete).toBe(true);
    }
    return { t, other };
  }

  async function patchSpec(t: Tenant, spec: Record<string, unknown>): Promise<void> {
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    if (!tc) throw new Error('no TenantCluster');
    await t.hostApi.update({ ...tc, spec: { ...(tc.spec as object), ...spec } });
  }

  async function annotate(t: Tenant, key: string, value: string): Promise<void> {
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    if (!tc) throw new Error('no TenantCluster');
    const annotations = { ...(tc.metadata.annotations ?? {}), [key]: value };
    await t.hostApi.update({ ...tc, metadata: { ...tc.metadata, annotations } });
  }

  async function status(t: Tenant): Promise<Record<string, unknown>> {
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    return (tc?.status ?? {}) as Record<string, unknown>;
  }

  return { scene, snapshot, changes, copiesOf, patchSpec, annotate, status };
}
