/**
 * Classes from the host, on the real clusters: the host StorageClasses, IngressClasses,
 * PriorityClasses and RuntimeClasses `spec.fromHost` selects appear in the tenant under their own
 * names; a tenant-made class of a selected name is left exactly as it was (uid and
 * resourceVersion); a steady pass writes nothing in the tenant; a host change reaches the copy; a
 * class the policy stops naming is removed from the tenant.
 *
 * Classes are cluster-scoped and both apiservers are shared by every test file: every class here
 * carries the tenant's name, and the file removes what it made.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import {
  createTenant,
  LABEL,
  pass,
  TENANT_CLUSTER,
  type Tenant,
  tenantClusterObject,
  useApis,
} from './support.js';

const apis = useApis();
const SC: KindRef = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const IC: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' };
const PC: KindRef = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' };
const RC: KindRef = { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' };
const CLASS_KINDS = [SC, IC, PC, RC];

/** `Action Kind name` lines of the class Decisions, sorted. */
const classLines = (result: PassResult) =>
  result.decisions
    .filter((d) => d.kind.endsWith('Class'))
    .map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)
    .sort();

/** The tenant's classes of this test (by name prefix), `Kind name` -> `uid@resourceVersion`. */
async function tenantClasses(t: Tenant): Promise<Record<string, string>> {
  const seen: Record<string, string> = {};
  for (const kind of CLASS_KINDS) {
    const page = await t.tenantApi.list(kind, {});
    for (const c of page.items) {
      if (!c.metadata.name.startsWith(t.name)) continue;
      seen[`${kind.kind} ${c.metadata.name}`] = `${c.metadata.uid}@${c.metadata.resourceVersion}`;
    }
  }
  return seen;
}

async function setFromHost(t: Tenant, fromHost: Record<string, unknown>): Promise<void> {
  const tc = await tenantClusterObject(t);
  await t.hostApi.update({ ...tc, spec: { ...(tc.spec as object), fromHost } });
}

const made: Array<{ api: 'host' | 'tenant'; kind: KindRef; name: string }> = [];
let tenant: Tenant | undefined;

afterAll(async () => {
  if (!tenant) return;
  const t = tenant;
  for (const { api, kind, name } of made) {
    const client = api === 'host' ? t.hostApi : t.tenantApi;
    const found = await client.get(kind, undefined, name);
    if (found) await client.delete(kind, undefined, name, { uid: found.metadata.uid as string });
  }
  // Copies the test left in the tenant.
  for (const kind of CLASS_KINDS) {
    for (const c of (await t.tenantApi.list(kind, {})).items) {
      if (c.metadata.labels?.['tenantplane.io/tenant'] !== t.name) continue;
      await t.tenantApi.delete(kind, undefined, c.metadata.name, {
        uid: c.metadata.uid as string,
      });
    }
  }
});

describe('classes from the host', () => {
  it('copies the selected host classes into the tenant, leaves a tenant-made one untouched, writes nothing when steady, follows and removes', async () => {
    const t = await createTenant(apis(), 'classes');
    tenant = t;
    const n = (suffix: string) => `${t.name}-${suffix}`;
    const host = async (object: KubeObject) => {
      await t.hostApi.create(object);
      made.push({ api: 'host', kind: object, name: object.metadata.name });
    };
    await host({ ...SC, metadata: { name: n('fast') }, provisioner: 'example.com/fast' });
    await host({ ...SC, metadata: { name: n('taken') }, provisioner: 'example.com/host' });
    await host({ ...SC, metadata: { name: n('unnamed') }, provisioner: 'example.com/other' });
    await host({
      ...IC,
      metadata: { name: n('nginx'), labels: { [LABEL]: t.name } },
      spec: { controller: 'example.com/ingress' },
    });
    await host({ ...PC, metadata: { name: n('high') }, value: 1000, description: 'host' });
    await host({ ...RC, metadata: { name: n('sandbox') }, handler: 'runsc' });
    // The tenant's own StorageClass of a name the policy selects.
    const own = await t.tenantApi.create({
      ...SC,
      metadata: { name: n('taken'), labels: { mine: 'yes' } },
      provisioner: 'example.com/tenant',
    });
    made.push({ api: 'tenant', kind: SC, name: n('taken') });
    const ownRef = `${own.metadata.uid}@${own.metadata.resourceVersion}`;

    await setFromHost(t, {
      storageClasses: { names: [n('fast'), n('taken')] },
      ingressClasses: { labelSelector: `${LABEL}=${t.name}` },
      priorityClasses: { names: [n('high')] },
      runtimeClasses: { names: [n('sandbox')] },
    });
    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(classLines(first.result)).toEqual([
      `Create IngressClass ${n('nginx')}`,
      `Create PriorityClass ${n('high')}`,
      `Create RuntimeClass ${n('sandbox')}`,
      `Create StorageClass ${n('fast')}`,
      `Skip StorageClass ${n('taken')}`,
    ]);
    const copy = await t.tenantApi.get(SC, undefined, n('fast'));
    expect(copy).toMatchObject({
      provisioner: 'example.com/fast',
      metadata: {
        labels: {
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': t.name,
          'tenantplane.io/from-host': 'true',
        },
      },
    });
    expect(await t.tenantApi.get(PC, undefined, n('high'))).toMatchObject({ value: 1000 });
    expect(await t.tenantApi.get(SC, undefined, n('unnamed'))).toBeUndefined();
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect((tc?.status as { fromHostKinds?: string[] } | undefined)?.fromHostKinds).toEqual([
      'StorageClass',
      'IngressClass',
      'PriorityClass',
      'RuntimeClass',
    ]);

    // Steady: nothing written in the tenant (the Skip repeats), every class as it was.
    const before = await tenantClasses(t);
    expect(before[`StorageClass ${n('taken')}`]).toBe(ownRef);
    for (const options of [{}, { full: true }]) {
      const steady = await pass(t, options);
      expect(steady.result.errors).toEqual([]);
      expect(steady.result.requests.tenant.writes).toBe(0);
      expect(classLines(steady.result)).toEqual([`Skip StorageClass ${n('taken')}`]);
    }
    expect(await tenantClasses(t)).toEqual(before);

    // The host class changes: the copy follows.
    const fast = (await t.hostApi.get(SC, undefined, n('fast'))) as KubeObject;
    await t.hostApi.update({ ...fast, allowVolumeExpansion: true });
    const followed = await pass(t);
    expect(followed.result.errors).toEqual([]);
    expect(classLines(followed.result)).toEqual([
      `Skip StorageClass ${n('taken')}`,
      `Update StorageClass ${n('fast')}`,
    ]);
    expect((await t.tenantApi.get(SC, undefined, n('fast')))?.allowVolumeExpansion).toBe(true);

    // The policy stops naming two classes: their copies go, the tenant's own class stays.
    await setFromHost(t, {
      storageClasses: { names: [n('taken')] },
      ingressClasses: { labelSelector: `${LABEL}=${t.name}` },
      runtimeClasses: { names: [n('sandbox')] },
    });
    const dropped = await pass(t);
    expect(dropped.result.errors).toEqual([]);
    expect(classLines(dropped.result)).toEqual([
      `Delete PriorityClass ${n('high')}`,
      `Delete StorageClass ${n('fast')}`,
      `Skip StorageClass ${n('taken')}`,
    ]);
    const after = await tenantClasses(t);
    expect(Object.keys(after).sort()).toEqual([
      `IngressClass ${n('nginx')}`,
      `RuntimeClass ${n('sandbox')}`,
      `StorageClass ${n('taken')}`,
    ]);
    expect(after[`StorageClass ${n('taken')}`]).toBe(ownRef);
    const forgotten = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect((forgotten?.status as { fromHostKinds?: string[] } | undefined)?.fromHostKinds).toEqual([
      'StorageClass',
      'IngressClass',
      'RuntimeClass',
    ]);
  });
});
