/**
 * Issue 30, the tenant DNS named by its Service (`spec.workloads.tenantDns.service`), on the real
 * clusters (tenant and host apiservers on one service range). A tenant Service `dns` (a plain
 * ClusterIP Service with a selector stands in for the CoreDNS of `deploy/tenant-dns/`) and a Pod,
 * with Pods before Services in the policy: the first pass creates the Service's copy, then the
 * host Pod, whose only nameserver is the copy's cluster IP, which is the tenant Service's. A
 * tenant whose DNS Service does not exist: the new Pod is not created, the pass says why in plain
 * words, and the tenant's running host Pod stays (uid/resourceVersion snapshot of the host
 * namespace: nothing written); once the Service exists, the next pass creates the Pod.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  pass,
  SERVICE,
  type Tenant,
  tenantClusterObject,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
// Pods first: the pass applies Services before them anyway.
const TO_HOST = [POD, SERVICE];

interface DnsSpec {
  dnsPolicy?: string;
  dnsConfig?: { nameservers?: string[]; searches?: string[] };
}
const ipOf = (o: KubeObject | undefined) =>
  (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;
/** A Pod's DNS settings, and nothing else of its spec. */
function dnsOf(o: KubeObject | undefined): DnsSpec {
  const { dnsPolicy, dnsConfig } = (o?.spec ?? {}) as DnsSpec;
  return { dnsPolicy, dnsConfig };
}

function pod(t: Tenant, name: string): KubeObject {
  return tenantObject(t, POD, t.vns.a, name, {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
    },
  });
}

/** The stand-in for the tenant DNS: a ClusterIP Service in the tenant's second namespace. */
function dnsService(t: Tenant): KubeObject {
  return tenantObject(t, SERVICE, t.vns.b, 'dns', {
    spec: {
      selector: { app: 'dns' },
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
    },
  });
}

/** Names the tenant's DNS Service in its TenantCluster. */
async function nameDns(t: Tenant): Promise<void> {
  const tc = await tenantClusterObject(t);
  const spec = tc.spec as Record<string, unknown>;
  const tenantDns = { service: `${t.vns.b}/dns`, clusterDomain: 'cluster.local' };
  await t.hostApi.update({ ...tc, spec: { ...spec, workloads: { tenantDns } } });
}

const podDecisions = (result: { decisions: readonly { kind: string; action: string }[] }) =>
  result.decisions
    .filter((d) => d.kind === 'Pod' || d.kind === 'Service')
    .map((d) => `${d.action} ${d.kind}`)
    .sort();

describe('the tenant DNS Service on the real clusters', () => {
  it('the first pass creates the DNS Service’s copy, then the Pod, whose nameserver is the copy’s (and the tenant’s) cluster IP', async () => {
    const t = await createTenant(apis(), 'dns-svc', { toHost: TO_HOST });
    await nameDns(t);
    const tenantDns = await t.tenantApi.create(dnsService(t));
    await t.tenantApi.create(pod(t, 'web'));

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    expect(podDecisions(first.result)).toEqual(['Create Pod', 'Create Service']);
    const copy = await t.hostApi.get(SERVICE, t.hostNamespace, hostName('dns', t.vns.b, t.name));
    const address = ipOf(copy);
    expect(address).toMatch(/^10\.96\./);
    // Aligned: the tenant's name answers the address the host serves.
    expect(ipOf(await t.tenantApi.get(SERVICE, t.vns.b, 'dns'))).toBe(address);
    expect(ipOf(tenantDns)).toBe(address);
    const web = await t.hostApi.get(POD, t.hostNamespace, hostName('web', t.vns.a, t.name));
    expect(dnsOf(web)).toEqual({
      dnsPolicy: 'None',
      dnsConfig: expect.objectContaining({
        nameservers: [address],
        searches: [`${t.vns.a}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local'],
      }),
    });
  });

  it('without the DNS Service: the new Pod waits, the error says why, the running host Pod stays; then the Pod comes', async () => {
    const t = await createTenant(apis(), 'dns-none', { toHost: TO_HOST });
    await t.tenantApi.create(pod(t, 'running'));
    expect((await pass(t)).result.errors).toEqual([]);
    const runningName = hostName('running', t.vns.a, t.name);
    // Its status settles before the snapshot: the host's own writes are not the engine's.
    await waitFor(
      'the host Pod running',
      async () => {
        const p = await t.hostApi.get(POD, t.hostNamespace, runningName);
        return (p?.status as { phase?: string } | undefined)?.phase === 'Running'
          ? true
          : undefined;
      },
      120_000,
    );

    await nameDns(t);
    await t.tenantApi.create(pod(t, 'new'));
    const before = await snapshot(t.hostNamespace);
    for (const n of [1, 2]) {
      const waiting = await pass(t, { full: true });
      expect({ n, errors: waiting.result.errors }).toEqual({
        n,
        errors: [
          expect.objectContaining({
            kind: 'Pod',
            message: `the tenant DNS Service ${t.vns.b}/dns (spec.workloads.tenantDns.service) has no host copy yet (it does not exist in the tenant, or was not synced), so no Pod was synced; they wait for it`,
          }),
        ],
      });
      expect({ n, writes: waiting.result.requests.host.writes }).toEqual({ n, writes: 0 });
    }
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    await t.tenantApi.create(dnsService(t));
    const next = await pass(t);
    expect(next.result.errors).toEqual([]);
    const address = ipOf(await t.tenantApi.get(SERVICE, t.vns.b, 'dns'));
    const made = await t.hostApi.get(POD, t.hostNamespace, hostName('new', t.vns.a, t.name));
    expect(dnsOf(made).dnsConfig?.nameservers).toEqual([address]);
    // The running Pod was made without the tenant DNS: it stays as it is, and says so.
    const running = await t.hostApi.get(POD, t.hostNamespace, runningName);
    expect(running?.metadata.uid).toBe(before.get(`Pod/${runningName}`)?.split('@')[0]);
    expect(next.result.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Skip',
        kind: 'Pod',
        tenantRef: { namespace: t.vns.a, name: 'running' },
        reason: expect.stringContaining('spec.dnsPolicy, spec.dnsConfig changed'),
      }),
    );
  });
});
