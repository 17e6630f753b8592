/**
 * The Pod kind's turn with a tenant DNS Service, pass after pass on in-memory clusters: the
 * Service's copy is made before the Pods in the same pass, its address read once a pass (one
 * GET) and given to every host Pod that asks for cluster DNS; a DNS Service without a copy or
 * whose copy cannot be read keeps new Pods waiting and leaves running host Pods alone, with an
 * error that says why; a deleted one whose address running Pods use keeps its copy, and new Pods
 * get that address; a literal nameserver, or Pods that keep their own DNS, read nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { ClusterError, type KubeObject } from '../../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../../fakes/memory-cluster.js';
import { clusters, HOST_NS, hn, hostCopyOf } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const ADDRESS = '10.96.200.1';

function pod(name: string, more: Record<string, unknown> = {}): KubeObject {
  return {
    ...POD,
    metadata: { namespace: 'shop', name, uid: `uid-${name}` },
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'nginx:1' }],
      ...more,
    },
  };
}
const dnsService: KubeObject = {
  ...SERVICE,
  metadata: { namespace: 'dns', name: 'dns', uid: 'uid-dns' },
  spec: { clusterIP: ADDRESS, selector: { app: 'dns' }, ports: [{ port: 53, protocol: 'UDP' }] },
};

/** Pods before Services in the policy: the pass still applies the Services first. */
function world(tenantState: KubeObject[], hostState: KubeObject[] = [], tenantDns: unknown = {}) {
  const dns = { service: 'dns/dns', ...(tenantDns as object) };
  const spec = { toHost: [POD, SERVICE], workloads: { tenantDns: dns } };
  return clusters(tenantState, hostState, spec, {
    // The host gives a copy that asked for no address the tenant's (an apiserver allocates one).
    host: {
      normalize: (object) => {
        const s = object.spec as Record<string, unknown> | undefined;
        if (object.kind === 'Service' && s && s.clusterIP === undefined) s.clusterIP = ADDRESS;
      },
    },
  });
}

const dnsGets = (hostApi: MemoryCluster) =>
  hostApi.callsOf('get').filter((c) => c.kind === 'Service' && c.name === hn('dns', 'dns')).length;
const nameservers = (hostApi: MemoryCluster, name: string) =>
  (hostApi.peek(POD, HOST_NS, hn('shop', name))?.spec as { dnsConfig?: { nameservers?: unknown } })
    ?.dnsConfig?.nameservers;
const podWrites = (result: Awaited<ReturnType<typeof runPass>>) =>
  result.decisions
    .filter((d) => d.kind === 'Pod' && d.action !== 'Skip')
    .map((d) => `${d.action} ${d.tenantRef.name}`);
const pass = ({ tenantApi, hostApi }: ReturnType<typeof world>) =>
  runPass({ tenant: 'dev', tenantApi, hostApi });

describe('the Pod turn’s tenant DNS Service', () => {
  it('finds the copy the same pass made; the Pod gets its address; one GET a pass', async () => {
    const w = world([pod('web'), dnsService]);
    const first = await pass(w);
    expect(first.errors).toEqual([]);
    expect(podWrites(first)).toEqual(['Create web']);
    expect(nameservers(w.hostApi, 'web')).toEqual([ADDRESS]);
    expect(dnsGets(w.hostApi)).toBe(1);
    // Resumed, no Pod changed: nothing to translate, nothing read.
    const resumed = await pass(w);
    expect(resumed.path).toBe('resumed');
    expect(resumed.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
    expect(dnsGets(w.hostApi)).toBe(1);
    // A full pass translates every Pod again with one read, and writes nothing.
    const full = await runPass({
      tenant: 'dev',
      tenantApi: w.tenantApi,
      hostApi: w.hostApi,
      path: 'full',
    });
    expect(full.errors).toEqual([]);
    expect(full.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
    expect(dnsGets(w.hostApi)).toBe(2);
  });

  it('without the Service’s copy: new Pods wait, running ones stay, the error says why; then the Pod comes', async () => {
    const running = hostCopyOf(pod('web'));
    const w = world([pod('web'), pod('new')], [running]);
    const before = w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'));
    const first = await pass(w);
    expect(first.errors.map((e) => `${e.kind}: ${e.message}`)).toEqual([
      'Pod: the tenant DNS Service dns/dns (spec.workloads.tenantDns.service) has no host copy yet (it does not exist in the tenant, or was not synced), so no Pod was synced; they wait for it',
    ]);
    expect(podWrites(first)).toEqual([]);
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'))).toEqual(before);
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'new'))).toBeUndefined();

    w.tenantApi.seed(dnsService);
    const second = await pass(w);
    expect(second.errors).toEqual([]);
    expect(podWrites(second)).toContain('Create new');
    expect(nameservers(w.hostApi, 'new')).toEqual([ADDRESS]);
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'))?.metadata.uid).toBe(
      before?.metadata.uid,
    );
  });

  it('on a resumed pass too: the DNS Service deleted, its copy stays while the running Pod uses its address, and a new Pod gets it', async () => {
    const w = world([pod('web'), dnsService]);
    expect((await pass(w)).errors).toEqual([]);
    const web = w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'));
    const copy = w.hostApi.peek(SERVICE, HOST_NS, hn('dns', 'dns'));
    w.tenantApi.remove(SERVICE, 'dns', 'dns');
    await w.tenantApi.create(pod('late'));
    const resumed = await pass(w);
    expect(resumed.errors).toEqual([]);
    // Kept (nameserver-hold.ts): freed, the address could go to another tenant's Service.
    expect(resumed.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Skip',
        kind: 'Service',
        reason: expect.stringContaining(`use its cluster IP ${ADDRESS} as their nameserver`),
      }),
    );
    expect(w.hostApi.peek(SERVICE, HOST_NS, hn('dns', 'dns'))).toEqual(copy);
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'))).toEqual(web);
    // All of the tenant's Pods on the one address its running Pods use.
    expect(podWrites(resumed)).toEqual(['Create late']);
    expect(nameservers(w.hostApi, 'late')).toEqual([ADDRESS]);
  });

  it('a DNS Service deleted with no Pod using its address: the copy goes, a new Pod waits', async () => {
    const w = world([dnsService]);
    expect((await pass(w)).errors).toEqual([]);
    w.tenantApi.remove(SERVICE, 'dns', 'dns');
    await w.tenantApi.create(pod('late'));
    const resumed = await pass(w);
    expect(resumed.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^the tenant DNS Service dns\/dns .* has no host copy yet/),
    ]);
    expect(podWrites(resumed)).toEqual([]);
    expect(w.hostApi.peek(SERVICE, HOST_NS, hn('dns', 'dns'))).toBeUndefined();
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'late'))).toBeUndefined();
    // The Service kind reads its copy to delete it; the Pod turn reads it once.
    expect(dnsGets(w.hostApi)).toBe(2);
  });

  it('a copy that cannot be read is the Service’s error; no Pod is written or collected', async () => {
    const running = hostCopyOf(pod('web'));
    const w = world([pod('web'), pod('new'), dnsService], [running]);
    w.hostApi.failWhen((call) =>
      call.method === 'get' && call.kind === 'Service'
        ? new ClusterError('Forbidden', 'services "x" is forbidden', { status: 403 })
        : undefined,
    );
    const result = await pass(w);
    expect(result.errors).toEqual([
      expect.objectContaining({
        kind: 'Service',
        reason: 'Forbidden',
        tenantRef: { namespace: 'dns', name: 'dns' },
      }),
    ]);
    expect(podWrites(result)).toEqual([]);
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'web'))).toBeDefined();
    expect(w.hostApi.peek(POD, HOST_NS, hn('shop', 'new'))).toBeUndefined();
  });

  it.each([
    {
      name: 'a literal nameserver',
      pods: [pod('web')],
      tenantDns: { nameserver: '10.96.0.10' },
      expected: ['10.96.0.10'],
    },
    {
      name: 'Pods that keep the node’s DNS',
      pods: [pod('web', { dnsPolicy: 'Default' })],
      tenantDns: {},
      expected: undefined,
    },
  ])('reads nothing for $name', async ({ pods, tenantDns, expected }) => {
    const w =
      'nameserver' in tenantDns
        ? clusters(pods, [], { toHost: [POD, SERVICE], workloads: { tenantDns } })
        : world(pods, [], tenantDns);
    const result = await runPass({ tenant: 'dev', tenantApi: w.tenantApi, hostApi: w.hostApi });
    expect(result.errors).toEqual([]);
    expect(podWrites(result)).toEqual(['Create web']);
    expect(nameservers(w.hostApi, 'web')).toEqual(expected);
    expect(dnsGets(w.hostApi)).toBe(0);
  });
});
