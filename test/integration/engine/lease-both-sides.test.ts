/**
 * Issue 35, defect 3, on the real clusters: the lease guards every write of a pass, on the tenant
 * side too. A tenant has writes waiting only on its own side: a Service in the host's static
 * band whose copy has another address (a realignment: delete and recreate the tenant Service), a
 * Pod whose host copy is Running on a node (its binding, the tenant Node, its status back). While
 * another holder (a follow elsewhere) holds the tenant's Lease, a pass with the lease, as
 * `tenantplane sync` runs it, resumed or full, changes nothing on either side (uid and
 * resourceVersion of the host namespace, the tenant namespace, the tenant Node and the
 * TenantCluster) and its result says who holds the lease. Once the lease is free, a pass makes
 * those very writes: the held passes had something to write.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName, runPass } from '../../../lib/engine/index.js';
import { LEASE, leaseName } from '../../../lib/engine/tenant/tenant-lease.js';
import {
  type ClusterApi,
  ClusterError,
  type KindRef,
  type KubeObject,
  type PassResult,
} from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  diffSnapshots,
  kwokNode,
  listAll,
  RUN,
  removeNode,
  SERVICE,
  type Snapshot,
  TENANT_CLUSTER,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const NODE_NAME = `lease-sides-${RUN}`;
const TAINT = { key: 'tenantplane-test/dedicated', value: NODE_NAME, effect: 'NoSchedule' };
/** In the band of 10.96.0.0/16 the host keeps for static assignment: never given to a copy. */
const BAND_IP = '10.96.0.93';
const HOLDER = 'tenantplane follow elsewhere (another host, pid 1)';

const micro = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const ipOf = (o: KubeObject | undefined) =>
  (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;
const nodeNameOf = (pod: KubeObject | undefined) =>
  (pod?.spec as { nodeName?: string } | undefined)?.nodeName;

/** The tenant client of a pass whose tenant writes the tenant refuses (dry runs go through). */
function refusingWrites(api: ClusterApi): ClusterApi {
  const refuse = async (): Promise<never> => {
    throw new ClusterError('Forbidden', 'the test refuses tenant writes in this pass', {
      status: 403,
    });
  };
  return new Proxy(api, {
    get(target, property) {
      if (property === 'create') {
        return (object: KubeObject, options?: { dryRun?: boolean }) =>
          options?.dryRun ? target.create(object, options) : refuse();
      }
      if (['update', 'delete', 'patchStatus', 'bind', 'createToken'].includes(String(property))) {
        return refuse;
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `side Kind/namespace/name` -> `uid@resourceVersion` of what a pass of `t` could write. */
async function snapshot(t: Tenant): Promise<Snapshot> {
  const all: Snapshot = new Map();
  const put = (side: string, o: KubeObject) =>
    all.set(
      `${side} ${o.kind ?? ''}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
      `${o.metadata.uid}@${o.metadata.resourceVersion}`,
    );
  // The host's own Events (the scheduler's, kwok's) come and go on their own: not the pass's.
  const hostKinds = [POD, SERVICE, CONFIGMAP, LEASE, { apiVersion: 'v1', kind: 'Secret' }];
  for (const kind of hostKinds)
    for (const o of await listAll(t.hostApi, kind, t.hostNamespace))
      put('host', { ...o, kind: kind.kind });
  const tenantKinds = [POD, SERVICE, CONFIGMAP, { apiVersion: 'v1', kind: 'Event' }];
  for (const kind of tenantKinds)
    for (const o of await listAll(t.tenantApi, kind, t.vns.a))
      put('tenant', { ...o, kind: kind.kind });
  const node = await t.tenantApi.get(NODE, undefined, NODE_NAME);
  if (node) put('tenant', { ...node, kind: 'Node' });
  const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
  if (tc) put('host', { ...tc, kind: 'TenantCluster' });
  return all;
}

/** A pass as `tenantplane sync` runs it: with the lease. */
function syncPass(t: Tenant, path: 'auto' | 'full'): Promise<PassResult> {
  return runPass({ tenant: t.name, tenantApi: t.tenantApi, hostApi: t.hostApi, lease: true, path });
}

describe('the lease guards the tenant side too', () => {
  afterAll(() => removeNode(apis().hostApi, NODE_NAME));

  it('a pass that finds the lease held realigns no Service, binds no Pod, writes no tenant Node, status back or status', async () => {
    const { hostApi, tenantApi } = apis();
    // A kwok node of this test's own (tainted, selected by name): no other tenant's Pod on it.
    await hostApi.create(
      kwokNode(NODE_NAME, '10.245.31.0/24', TAINT, { 'kubernetes.io/arch': 'amd64' }),
    );
    const t = await createTenant(apis(), 'lease-sides', {
      toHost: [SERVICE, POD],
      // The test's node is dedicated to it: its toleration is the policy's to allow.
      workloads: { scheduling: { tolerations: [{ ...TAINT, operator: 'Equal' }] } },
    });
    const ns = t.vns.a;
    const band = await tenantApi.create(
      tenantObject(t, SERVICE, ns, 'band', {
        spec: { ports: [{ port: 80 }], selector: { app: 'web' }, clusterIP: BAND_IP },
      }),
    );
    await tenantApi.create(
      tenantObject(t, POD, ns, 'web', {
        spec: {
          automountServiceAccountToken: false,
          nodeSelector: { 'kubernetes.io/hostname': NODE_NAME },
          tolerations: [{ ...TAINT, operator: 'Equal' }],
          containers: [{ name: 'web', image: 'nginx:1' }],
        },
      }),
    );

    // The copies are made; every tenant write is left waiting (the tenant refuses them here).
    const copies = await runPass({
      tenant: t.name,
      tenantApi: refusingWrites(tenantApi),
      hostApi,
      lease: false,
      path: 'full',
    });
    expect(copies.counts.Create).toBe(2);
    const hostPod = hostName('web', ns, t.name);
    await waitFor(
      'the host Pod Running on the test’s node',
      async () => {
        const pod = await hostApi.get(POD, t.hostNamespace, hostPod);
        const phase = (pod?.status as { phase?: string } | undefined)?.phase;
        return phase === 'Running' && nodeNameOf(pod) === NODE_NAME ? pod : undefined;
      },
      60_000,
    );
    const copy = await hostApi.get(SERVICE, t.hostNamespace, hostName('band', ns, t.name));
    expect(ipOf(copy)).not.toBe(BAND_IP);
    expect(ipOf(await tenantApi.get(SERVICE, ns, 'band'))).toBe(BAND_IP);
    expect(nodeNameOf(await tenantApi.get(POD, ns, 'web'))).toBeUndefined();

    // A follow elsewhere holds the tenant's lease (in the host namespace, where it lives).
    const now = Date.now();
    const held = await hostApi.create({
      ...LEASE,
      metadata: { name: leaseName(t.name), namespace: t.hostNamespace },
      spec: {
        holderIdentity: HOLDER,
        leaseDurationSeconds: 600,
        acquireTime: micro(now),
        renewTime: micro(now),
      },
    });

    for (const path of ['auto', 'full'] as const) {
      const before = await snapshot(t);
      const result = await syncPass(t, path);
      const after = await snapshot(t);
      expect({ path, diff: diffSnapshots(before, after) }).toEqual({
        path,
        diff: { created: [], changed: [], deleted: [] },
      });
      expect(result.leaseHeld).toMatchObject({
        holder: HOLDER,
        lease: `${t.hostNamespace}/${leaseName(t.name)}`,
      });
      expect(result.counts).toMatchObject({ Create: 0, Update: 0, Delete: 0 });
      expect(result.statusWritten).not.toBe(true);
    }
    expect((await tenantApi.get(SERVICE, ns, 'band'))?.metadata.uid).toBe(band.metadata.uid);
    expect(await tenantApi.get(NODE, undefined, NODE_NAME)).toBeUndefined();

    // The lease free again: a pass makes the writes the held ones did not.
    await hostApi.delete(LEASE, t.hostNamespace, leaseName(t.name), {
      uid: held.metadata.uid as string,
    });
    const free = await syncPass(t, 'full');
    expect(free.leaseHeld).toBeUndefined();
    expect(free.errors).toEqual([]);
    const realigned = await tenantApi.get(SERVICE, ns, 'band');
    expect(realigned?.metadata.uid).not.toBe(band.metadata.uid);
    expect(ipOf(realigned)).toBe(ipOf(copy));
    expect(nodeNameOf(await tenantApi.get(POD, ns, 'web'))).toBe(NODE_NAME);
    expect(await tenantApi.get(NODE, undefined, NODE_NAME)).toBeDefined();
    expect(await listAll(hostApi, LEASE, t.hostNamespace)).toEqual([]);
  }, 180_000);
});
