/**
 * A deleted tenant Service's copy whose cluster IP host Pods use as their nameserver stays (a Skip
 * naming them) until no Pod that has not ended names it; a copy nobody names goes as before; Pods
 * that cannot be listed keep every such copy; the tenant applying the Service again gets the same
 * copy back, updated, with its address.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { ClusterError, type KubeObject, POD, SERVICE } from '../../../../../lib/ports/index.js';
import { MemoryCluster } from '../../../fakes/memory-cluster.js';
import { HOST_NS, hn, tenantCluster } from '../../support.js';

const SERVICE_CIDR = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes' },
  spec: { cidrs: ['10.96.0.0/16'] },
};
const svc = (name: string, ip: string): KubeObject => ({
  ...SERVICE,
  metadata: { namespace: 'tenant-dns', name },
  spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ port: 53, protocol: 'UDP' }] },
});
const hostPod = (name: string, nameserver: string, phase = 'Running'): KubeObject => ({
  ...POD,
  metadata: { namespace: HOST_NS, name },
  spec: { dnsPolicy: 'None', dnsConfig: { nameservers: [nameserver] }, containers: [] },
  status: { phase },
});

async function setup() {
  const tenantApi = new MemoryCluster('tenant');
  const hostApi = new MemoryCluster('host');
  hostApi.seed(tenantCluster({ toHost: [SERVICE] }), SERVICE_CIDR);
  await tenantApi.create(svc('dns', '10.96.5.5'));
  await tenantApi.create(svc('other', '10.96.6.6'));
  const full = () => runPass({ tenant: 'dev', tenantApi, hostApi, path: 'full' });
  expect((await full()).errors).toEqual([]);
  // A host Pod made with the tenant DNS's address as its nameserver (as the Pod kind makes them).
  hostApi.seed(hostPod('web-1', '10.96.5.5'), hostPod('web-2', '10.96.5.5'));
  for (const name of ['dns', 'other']) {
    const source = tenantApi.peek(SERVICE, 'tenant-dns', name) as KubeObject;
    await tenantApi.delete(SERVICE, 'tenant-dns', name, { uid: source.metadata.uid ?? '' });
  }
  const copy = (name: string) => hostApi.peek(SERVICE, HOST_NS, hn('tenant-dns', name));
  return { tenantApi, hostApi, full, copy };
}

const lines = (decisions: readonly { action: string; tenantRef: { name: string } }[]) =>
  decisions.map((d) => `${d.action} ${d.tenantRef.name}`).sort();

describe('a Service copy whose address host Pods use as nameserver', () => {
  it('stays while they run (a Skip naming them), pass after pass; goes once they have ended', async () => {
    const { hostApi, full, copy } = await setup();
    const kept = copy('dns');
    for (const n of [1, 2]) {
      const pass = await full();
      expect({ n, errors: pass.errors }).toEqual({ n, errors: [] });
      expect(lines(pass.decisions)).toEqual(n === 1 ? ['Delete other', 'Skip dns'] : ['Skip dns']);
      expect(pass.decisions.find((d) => d.action === 'Skip')?.reason).toBe(
        'tenant Service tenant-dns/dns no longer exists; kept: host Pods web-1, web-2 use its cluster IP 10.96.5.5 as their nameserver (spec.dnsConfig.nameservers), and deleting it would free that address for another Service, their lookups with it; it goes once they are gone',
      );
      expect(copy('dns')?.metadata.resourceVersion).toBe(kept?.metadata.resourceVersion);
    }
    expect(copy('other')).toBeUndefined();
    // One ends, one is deleted: nothing names it any more.
    const web1 = hostApi.peek(POD, HOST_NS, 'web-1') as KubeObject;
    hostApi.seed({ ...web1, status: { phase: 'Succeeded' } });
    const web2 = hostApi.peek(POD, HOST_NS, 'web-2') as KubeObject;
    await hostApi.delete(POD, HOST_NS, 'web-2', { uid: web2.metadata.uid ?? '' });
    const after = await full();
    expect(lines(after.decisions)).toEqual(['Delete dns']);
    expect(copy('dns')).toBeUndefined();
  });

  it('host Pods that cannot be listed: every such copy stays, the Skip says why', async () => {
    const { hostApi, full, copy } = await setup();
    hostApi.failWhen((call) =>
      call.method === 'list' && call.kind === 'Pod'
        ? new ClusterError('Forbidden', 'pods is forbidden', { status: 403 })
        : undefined,
    );
    const pass = await full();
    expect(lines(pass.decisions)).toEqual(['Skip dns', 'Skip other']);
    expect(pass.decisions[0]?.reason).toContain(
      'kept: host Pods may use its cluster IP as their nameserver, and they could not be listed (pods is forbidden)',
    );
    expect(copy('dns')).toBeDefined();
    expect(copy('other')).toBeDefined();
  });

  it('the tenant applies the Service again: the same copy, updated, keeps the address', async () => {
    const { tenantApi, full, copy } = await setup();
    const kept = copy('dns') as KubeObject;
    await full();
    const again = await tenantApi.create(svc('dns', '10.96.7.7'));
    const pass = await full();
    expect(pass.errors).toEqual([]);
    const now = copy('dns') as KubeObject;
    expect(now.metadata.uid).toBe(kept.metadata.uid);
    expect((now.spec as { clusterIP: string }).clusterIP).toBe('10.96.5.5');
    expect(now.metadata.annotations?.['tenantplane.io/virtual-uid']).toBe(again.metadata.uid);
  });
});
