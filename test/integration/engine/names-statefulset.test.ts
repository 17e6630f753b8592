/**
 * Issue 30, StatefulSet identities, on the real clusters: a 3-replica StatefulSet (OrderedReady)
 * with a headless Service in the tenant. The tenant's controller manager makes `db-0`, the engine
 * copies it (its `hostname` kept, its `subdomain` naming the headless Service's host copy), kwok
 * runs it, its status comes back Ready, and only then does the tenant's controller make `db-1`:
 * passes until the tenant StatefulSet has 3 Ready. The tenant's own EndpointSlice of the headless
 * Service, made by the tenant's controller manager from the tenant Pods, then lists each Pod's
 * HOST address with its hostname: what a DNS reading the tenant answers for
 * `db-1.db.<ns>.svc.cluster.local`, and what the real tenant DNS does answer. The headless Service
 * stays headless on both sides.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { resolveA, tenantDnsServer } from '../support/dns.js';
import {
  createTenant,
  LABEL,
  listAll,
  pass,
  SERVICE,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const STATEFUL_SET: KindRef = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

interface Endpoint {
  addresses: string[];
  hostname?: string;
  conditions?: { ready?: boolean };
}

function statefulSet(t: Tenant): KubeObject {
  const labels = { app: 'db', [LABEL]: t.name };
  return tenantObject(t, STATEFUL_SET, t.vns.a, 'db', {
    spec: {
      replicas: 3,
      serviceName: 'db',
      podManagementPolicy: 'OrderedReady',
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          containers: [{ name: 'db', image: 'registry.example/db:1' }],
        },
      },
    },
  });
}

describe('StatefulSet identities', () => {
  it('3 Ready in order; the tenant’s EndpointSlice names each Pod’s host address with its hostname', async () => {
    const t = await createTenant(apis(), 'names-sts', { toHost: [SERVICE, POD] });
    const { tenantApi, hostApi } = t;
    const ns = t.vns.a;
    await tenantApi.create(
      tenantObject(t, SERVICE, ns, 'db', {
        spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'db', port: 5432 }] },
      }),
    );
    await tenantApi.create(statefulSet(t));

    const order: string[] = [];
    await waitFor(
      'the tenant StatefulSet with 3 Ready',
      async () => {
        const run = await pass(t, { full: true });
        expect(run.result.errors).toEqual([]);
        for (const d of run.result.decisions)
          if (d.kind === 'Pod' && d.action === 'Create') order.push(d.tenantRef.name);
        const sts = await tenantApi.get(STATEFUL_SET, ns, 'db');
        const ready = (sts?.status as { readyReplicas?: number } | undefined)?.readyReplicas;
        if (ready === 3) return ready;
        await new Promise((r) => setTimeout(r, 500));
        return undefined;
      },
      120_000,
    );
    // OrderedReady: each Pod was made (and copied) only once the one before it was Ready.
    expect(order).toEqual(['db-0', 'db-1', 'db-2']);

    const hostIps = new Map<string, string>();
    for (const name of ['db-0', 'db-1', 'db-2']) {
      const copy = (await hostApi.get(
        POD,
        t.hostNamespace,
        hostName(name, ns, t.name),
      )) as KubeObject;
      const spec = copy.spec as { hostname?: string; subdomain?: string };
      expect(spec.hostname).toBe(name);
      expect(spec.subdomain).toBe(hostName('db', ns, t.name));
      const podIP = (copy.status as { podIP?: string }).podIP as string;
      expect(podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      hostIps.set(name, podIP);
      const tenantPod = await tenantApi.get(POD, ns, name);
      expect((tenantPod?.status as { podIP?: string } | undefined)?.podIP).toBe(podIP);
    }

    // The tenant's controller manager makes the slice from the tenant Pods' status (come back).
    const endpoints = await waitFor(
      'the tenant EndpointSlice of db with 3 ready endpoints',
      async () => {
        const slices = await listAll(tenantApi, SLICE, ns);
        const mine = slices.filter(
          (s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'db',
        );
        const all = mine.flatMap((s) => (s.endpoints as Endpoint[] | undefined) ?? []);
        return all.length === 3 && all.every((e) => e.conditions?.ready) ? all : undefined;
      },
    );
    const byHostname = Object.fromEntries(endpoints.map((e) => [e.hostname, e.addresses]));
    expect(byHostname).toEqual({
      'db-0': [hostIps.get('db-0')],
      'db-1': [hostIps.get('db-1')],
      'db-2': [hostIps.get('db-2')],
    });
    // The tenant DNS (the real CoreDNS of deploy/tenant-dns, reading the tenant) answers each
    // Pod's stable name with the host address of that Pod's copy.
    const dns = tenantDnsServer();
    for (const name of ['db-0', 'db-1', 'db-2']) {
      const fqdn = `${name}.db.${ns}.svc.cluster.local`;
      const expected = { addresses: [hostIps.get(name)] };
      await waitFor(`${fqdn} answering its host address`, async () =>
        JSON.stringify(await resolveA(dns, fqdn)) === JSON.stringify(expected) ? true : undefined,
      );
    }
    // Headless on both sides.
    const copy = await hostApi.get(SERVICE, t.hostNamespace, hostName('db', ns, t.name));
    expect((copy?.spec as { clusterIP?: string } | undefined)?.clusterIP).toBe('None');
    expect(
      ((await tenantApi.get(SERVICE, ns, 'db'))?.spec as { clusterIP?: string } | undefined)
        ?.clusterIP,
    ).toBe('None');
  });
});
