/**
 * Issue 35, defect 2, on the real clusters: a freed tenant-DNS address is never granted to another
 * tenant. Two TenantClusters share the host (and, as the local plane has one, the tenant
 * apiserver): the victim syncs Pods and Services and names its DNS Service in
 * `spec.workloads.tenantDns`; its host Pod gets the DNS copy's cluster IP as its only nameserver.
 * The victim deletes its DNS Service (`kubectl delete -f`); its running host Pod keeps that
 * nameserver. The attacker then creates a Service asking for that very address, and its pass
 * asks the host for it. On 2dc1ea1 the victim's pass collected the copy and the attacker's copy
 * got the address: every lookup of the victim's Pod went to the attacker. Now the victim's copy is
 * kept (a Skip naming the Pod), the host refuses the attacker's ask, and uid/resourceVersion
 * snapshots of both host namespaces and of the tenant Services show nothing else changed. The
 * victim applies its DNS Service again: the same copy, and its tenant Service realigned to the
 * address its Pod uses.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  listAll,
  pass,
  SERVICE,
  type Snapshot,
  type Tenant,
  tenantClusterObject,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };

const ipOf = (o: KubeObject | undefined) =>
  (o?.spec as { clusterIP?: string } | undefined)?.clusterIP;
const nameserversOf = (o: KubeObject | undefined) =>
  (o?.spec as { dnsConfig?: { nameservers?: string[] } } | undefined)?.dnsConfig?.nameservers;

/** The stand-in for the tenant DNS of `deploy/tenant-dns/`: a ClusterIP Service. */
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

/** `<side> <namespace> Kind/name` -> uid@resourceVersion: both host namespaces, tenant Services. */
async function both(tenants: readonly Tenant[]): Promise<Snapshot> {
  const all: Snapshot = new Map();
  for (const t of tenants) {
    for (const [key, value] of await snapshot(t.hostNamespace))
      all.set(`host ${t.hostNamespace} ${key}`, value);
    for (const ns of [t.vns.a, t.vns.b])
      for (const s of await listAll(t.tenantApi, SERVICE, ns))
        all.set(
          `tenant ${ns} Service/${s.metadata.name}`,
          `${s.metadata.uid}@${s.metadata.resourceVersion}`,
        );
  }
  return all;
}

describe('a freed tenant-DNS address on a host shared by two tenants', () => {
  it('the victim’s DNS copy stays while its Pod uses the address; the attacker’s ask for it gets another; applied again, the victim’s Service has it back', async () => {
    const victim = await createTenant(apis(), 'dns-victim', { toHost: [POD, SERVICE] });
    const attacker = await createTenant(apis(), 'dns-attacker', { toHost: [SERVICE] });
    const { tenantApi, hostApi } = victim;
    const tc = await tenantClusterObject(victim);
    const tenantDns = { service: `${victim.vns.b}/dns`, clusterDomain: 'cluster.local' };
    await hostApi.update({
      ...tc,
      spec: { ...(tc.spec as object), workloads: { tenantDns } },
    });
    const dns = await tenantApi.create(dnsService(victim));
    await tenantApi.create(
      tenantObject(victim, POD, victim.vns.a, 'web', {
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'web', image: 'nginx:1' }],
        },
      }),
    );
    expect((await pass(victim)).result.errors).toEqual([]);
    const dnsCopyName = hostName('dns', victim.vns.b, victim.name);
    const dnsCopy = (await hostApi.get(SERVICE, victim.hostNamespace, dnsCopyName)) as KubeObject;
    const address = ipOf(dnsCopy) as string;
    expect(address).toBe(ipOf(dns));
    const webName = hostName('web', victim.vns.a, victim.name);
    // Its status settles before the snapshot: the host's own writes are not the engine's.
    await waitFor(
      'the victim’s host Pod running',
      async () => {
        const p = await hostApi.get(POD, victim.hostNamespace, webName);
        return (p?.status as { phase?: string } | undefined)?.phase === 'Running' ? p : undefined;
      },
      120_000,
    );
    expect(nameserversOf(await hostApi.get(POD, victim.hostNamespace, webName))).toEqual([address]);

    // The victim deletes its DNS Service; its pass.
    await tenantApi.delete(SERVICE, victim.vns.b, 'dns', { uid: dns.metadata.uid ?? '' });
    const before = await both([victim, attacker]);
    const collect = await pass(victim, { full: true });
    // The attacker asks for the address: its tenant Service, then its pass.
    const grab = await tenantApi.create(
      tenantObject(attacker, SERVICE, attacker.vns.a, 'grab', {
        spec: { clusterIP: address, clusterIPs: [address], ports: [{ port: 53, protocol: 'UDP' }] },
      }),
    );
    const ask = await pass(attacker);

    // The one host Service at the address is the victim's copy (2dc1ea1: the attacker's).
    const holders = await listAll(hostApi, SERVICE, undefined, `spec.clusterIP=${address}`);
    expect(holders.map((s) => `${s.metadata.namespace}/${s.metadata.name}`)).toEqual([
      `${victim.hostNamespace}/${dnsCopyName}`,
    ]);
    expect(collect.result.errors).toEqual([]);
    expect(ask.result.errors).toEqual([]);
    const grabCopyName = hostName('grab', attacker.vns.a, attacker.name);
    const grabCopy = await hostApi.get(SERVICE, attacker.hostNamespace, grabCopyName);
    expect(ipOf(grabCopy)).not.toBe(address);
    expect(collect.result.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Skip',
        kind: 'Service',
        reason: `tenant Service ${victim.vns.b}/dns no longer exists; kept: host Pods ${webName} use its cluster IP ${address} as their nameserver (spec.dnsConfig.nameservers), and deleting it would free that address for another Service, their lookups with it; it goes once they are gone`,
      }),
    );
    // The attacker's tenant Service has its copy's address (realigned), not the victim's.
    expect(ipOf(await tenantApi.get(SERVICE, attacker.vns.a, 'grab'))).toBe(ipOf(grabCopy));

    // Both host namespaces and the tenant Services: the attacker's Service (realigned: another
    // uid than it was created with) and its copy made, nothing else (the victim's copy and Pod
    // untouched).
    const after = await both([victim, attacker]);
    expect(diffSnapshots(before, after)).toEqual({
      created: [
        `host ${attacker.hostNamespace} Service/${grabCopyName}`,
        `tenant ${attacker.vns.a} Service/grab`,
      ],
      changed: [],
      deleted: [],
    });
    expect(after.get(`tenant ${attacker.vns.a} Service/grab`)?.split('@')[0]).not.toBe(
      grab.metadata.uid,
    );

    // The victim applies its DNS Service again: the same copy, its tenant Service back at the
    // address its Pod uses.
    await tenantApi.create(dnsService(victim));
    const again = await pass(victim, { full: true });
    expect(again.result.errors).toEqual([]);
    const kept = await hostApi.get(SERVICE, victim.hostNamespace, dnsCopyName);
    expect(kept?.metadata.uid).toBe(dnsCopy.metadata.uid);
    expect(ipOf(kept)).toBe(address);
    expect(ipOf(await tenantApi.get(SERVICE, victim.vns.b, 'dns'))).toBe(address);
  });
});
