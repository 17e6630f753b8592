/**
 * Issue 30, a tenant apiserver whose service range is not the host's, on real clusters of its
 * own (tenant 10.100.0.0/16, host 10.96.0.0/16): the Service's copy is created with an address
 * the host allocates (the tenant's is outside the host's range, so it is not asked for), and the
 * tenant Service cannot be realigned: one Skip per Service that names both ranges, decided again
 * word for word by each full pass; the scheduled (resumed) passes after it decide and write
 * nothing; the tenant Service untouched (uid and resourceVersion). The test plane is its own, as
 * the shared one has one range for both.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../../lib/engine/index.js';
import { LocalKubeconfigSource } from '../../../lib/localcluster/index.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { type DedicatedPlane, startDedicatedPlane } from '../support/daemons.js';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
let plane: DedicatedPlane;
let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;

beforeAll(async () => {
  plane = await startDedicatedPlane({ tenantServiceRange: '10.100.0.0/16' });
  const source = new LocalKubeconfigSource(plane.state);
  tenantApi = createClusterApi(await source.load('tenant'));
  hostApi = createClusterApi(await source.load('host'));
}, 180_000);

afterAll(async () => {
  await tenantApi?.close();
  await hostApi?.close();
  await plane?.stop();
});

const clusterIpOf = (service: KubeObject | undefined) =>
  (service?.spec as { clusterIP?: string } | undefined)?.clusterIP;

describe('a tenant service range that is not the host’s', () => {
  it('one Skip per Service naming both ranges, the same at each full pass; no write pass after pass', async () => {
    await hostApi.create({ ...NAMESPACE, metadata: { name: 'h-mismatch' } });
    await tenantApi.create({ ...NAMESPACE, metadata: { name: 'shop' } });
    await hostApi.create({
      ...TENANT_CLUSTER,
      metadata: { name: 'mismatch' },
      spec: { hostNamespace: 'h-mismatch', toHost: [SERVICE] },
    });
    const created = await tenantApi.create({
      ...SERVICE,
      metadata: { name: 'web', namespace: 'shop' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    expect(clusterIpOf(created)).toMatch(/^10\.100\./);
    const pass = (path: 'full' | 'auto' = 'full') =>
      runPass({ tenant: 'mismatch', tenantApi, hostApi, lease: false, path });

    const first = await pass();
    expect(first.errors).toEqual([]);
    const web = first.decisions.filter((d) => d.tenantRef.name === 'web');
    expect(web.map((d) => d.action)).toEqual(['Create', 'Skip']);
    const skip = web[1];
    expect(skip?.reason).toContain('10.96.0.0/16');
    expect(skip?.reason).toContain('10.100.0.0/16');
    const copy = (await hostApi.list(SERVICE, { namespace: 'h-mismatch' })).items[0];
    expect(clusterIpOf(copy)).toMatch(/^10\.96\./);

    // The passes the schedule runs (resumed): nothing decided again, nothing written anywhere.
    for (let i = 0; i < 2; i++) {
      const before = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
      const again = await pass('auto');
      expect({ path: again.path, decisions: again.decisions }).toEqual({
        path: 'resumed',
        decisions: [],
      });
      expect(tenantApi.requestCount().writes - before.tenant.writes).toBe(0);
      expect(hostApi.requestCount().writes - before.host.writes).toBe(0);
    }
    // A full pass (the periodic resync, --full) decides the same one Skip, and writes no object:
    // the tenant is asked by a dry-run create, which writes nothing.
    const full = await pass('full');
    expect(full.decisions.map((d) => `${d.action} ${d.tenantRef.name}`)).toEqual(['Skip web']);
    expect(full.decisions[0]?.reason).toBe(skip?.reason);
    expect(full.requests.host.writes).toBe(0);
    expect(full.requests.tenant.writes).toBe(1);
    const after = await tenantApi.get(SERVICE, 'shop', 'web');
    expect(after?.metadata.uid).toBe(created.metadata.uid);
    expect(after?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  }, 120_000);
});
