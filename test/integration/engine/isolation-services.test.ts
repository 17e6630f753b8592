/**
 * Issue 28, findings 3, 4 and 7, on the real clusters, with an attacker and a victim TenantCluster
 * sharing one host namespace. A Service with `externalIPs` (CVE-2020-8554), a NodePort Service, an
 * ExternalName to the metadata endpoint and to the host apiserver, a LoadBalancer with a cloud
 * annotation, and EndpointSlices of a selector-less Service naming the victim's host Pod IP and a
 * node IP (CVE-2021-25740) reach nothing: each is a Skip naming the field or the address, and a
 * uid/resourceVersion snapshot of the host namespace shows only the plain selector-less Service
 * copied. With the policy's knobs set, the same Services and a slice of the attacker's own Pod are
 * copied, while the victim's and the node's addresses stay refused; then a pass writes nothing.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { KubernetesKeys } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
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
const SLICE: KindRef = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
const PORTS = [{ name: 'http', port: 80, targetPort: 8080 }];
const CLOUD_KEY = 'service.beta.kubernetes.io/aws-load-balancer-internal';

type Spec = Record<string, unknown>;

function pod(t: Tenant, name: string): KubeObject {
  return tenantObject(t, POD, t.vns.a, name, {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'registry.example/web:1' }],
    },
  });
}

function service(t: Tenant, name: string, spec: Spec, annotations?: Record<string, string>) {
  return tenantObject(t, SERVICE, t.vns.a, name, { spec }, annotations ? { annotations } : {});
}

function slice(t: Tenant, name: string, address: string): KubeObject {
  return tenantObject(
    t,
    SLICE,
    t.vns.a,
    name,
    {
      addressType: 'IPv4',
      endpoints: [{ addresses: [address] }],
      ports: [{ name: 'http', port: 8080 }],
    },
    { labels: { [KubernetesKeys.ServiceName]: 'steal' } },
  );
}

/** The host Pod's address and its node's once it runs. */
function running(t: Tenant, name: string): Promise<{ podIP: string; hostIP: string }> {
  return waitFor(
    `host Pod ${name} running with an address`,
    async () => {
      const status = (await t.hostApi.get(POD, t.hostNamespace, name))?.status as
        | { phase?: string; podIP?: string; hostIP?: string }
        | undefined;
      return status?.phase === 'Running' && status.podIP && status.hostIP
        ? { podIP: status.podIP, hostIP: status.hostIP }
        : undefined;
    },
    60_000,
  );
}

/** The host namespace's snapshot once it holds still for two seconds. */
function settled(namespace: string): Promise<Snapshot> {
  return waitFor(
    `${namespace} to settle`,
    async () => {
      const before = await snapshot(namespace);
      await new Promise((r) => setTimeout(r, 2_000));
      const after = await snapshot(namespace);
      return [...before].join() === [...after].join() ? after : undefined;
    },
    60_000,
  );
}

/** Tenant name -> reason of the pass's Skips. */
function skipsOf(
  decisions: readonly { action: string; reason?: string; tenantRef: { name: string } }[],
) {
  return new Map(
    decisions.filter((d) => d.action === 'Skip').map((d) => [d.tenantRef.name, d.reason ?? '']),
  );
}

describe('Services and endpoints that reach beyond the tenant', () => {
  it('external IPs, node ports, load balancers, ExternalNames to the host and slices naming others’ addresses are Skips naming them; allowed by the policy they are copied; nothing else changes', async () => {
    const victim = await createTenant(apis(), 'is-victim', { toHost: [POD] });
    const attacker = await createTenant(apis(), 'is-attacker', {
      toHost: [POD, SERVICE, SLICE],
      hostNamespace: victim.hostNamespace,
    });
    const hostNs = victim.hostNamespace;
    await victim.tenantApi.create(pod(victim, 'web'));
    await attacker.tenantApi.create(pod(attacker, 'own'));
    expect((await pass(victim)).result.errors).toEqual([]);
    expect((await pass(attacker)).result.errors).toEqual([]);
    const victimPod = await running(victim, hostName('web', victim.vns.a, victim.name));
    const ownPod = await running(attacker, hostName('own', attacker.vns.a, attacker.name));

    // The victim Pod's node. The local host's kwok nodes are at 127.0.0.1, an address no slice may
    // name at all (the apiserver refuses loopback ones): a node's address as on a real network.
    const nodeIp = victimPod.hostIP.startsWith('127.') ? '172.18.0.2' : victimPod.hostIP;
    const before = await settled(hostNs);
    const hostile: Array<[KubeObject, string[]]> = [
      [
        service(attacker, 'ext-ips', { externalIPs: ['203.0.113.10'], ports: PORTS }),
        ['spec.externalIPs "203.0.113.10"'],
      ],
      [service(attacker, 'nodeport', { type: 'NodePort', ports: PORTS }), ['spec.type NodePort']],
      [
        service(attacker, 'metadata', { type: 'ExternalName', externalName: '169.254.169.254' }),
        ['spec.type ExternalName', 'spec.externalName "169.254.169.254" is an address'],
      ],
      [
        service(attacker, 'apiserver', {
          type: 'ExternalName',
          externalName: 'kubernetes.default.svc.cluster.local',
        }),
        ['spec.externalName "kubernetes.default.svc.cluster.local"'],
      ],
      [
        service(attacker, 'lb', { type: 'LoadBalancer', ports: PORTS }, { [CLOUD_KEY]: 'false' }),
        ['spec.type LoadBalancer', `annotation ${CLOUD_KEY}`],
      ],
      [slice(attacker, 'steal-victim', victimPod.podIP), [`"${victimPod.podIP}" is neither`]],
      [slice(attacker, 'steal-node', nodeIp), [`"${nodeIp}" is neither`]],
    ];
    // The selector-less Service the slices belong to: plain, so copied.
    await attacker.tenantApi.create(service(attacker, 'steal', { ports: PORTS }));
    for (const [object] of hostile) await attacker.tenantApi.create(object);

    const refused = await pass(attacker);
    expect(refused.result.errors).toEqual([]);
    const skips = skipsOf(refused.result.decisions);
    for (const [object, fields] of hostile) {
      const name = object.metadata.name;
      for (const field of fields) {
        expect({ name, reason: skips.get(name) }).toEqual({
          name,
          reason: expect.stringContaining(field),
        });
      }
    }
    const copyOf = (name: string) => hostName(name, attacker.vns.a, attacker.name);
    expect(diffSnapshots(before, await settled(hostNs))).toEqual({
      created: [`Service/${copyOf('steal')}`],
      changed: [],
      deleted: [],
    });

    // The policy allows the types, the address block, the cloud key and a name suffix: those
    // Services are copied, with a slice of the attacker's own Pod; the metadata endpoint needs an
    // exact entry, and the victim's and the node's addresses are no knob's to allow.
    const tc = await tenantClusterObject(attacker);
    await attacker.hostApi.update({
      ...tc,
      spec: {
        ...(tc.spec as Spec),
        workloads: {
          services: {
            types: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'],
            externalIPs: ['203.0.113.0/24'],
            externalNames: ['.example.com', '.cluster.local'],
            annotations: [CLOUD_KEY],
          },
        },
      },
    });
    await attacker.tenantApi.create(
      service(attacker, 'db', { type: 'ExternalName', externalName: 'db.example.com' }),
    );
    await attacker.tenantApi.create(slice(attacker, 'steal-own', ownPod.podIP));
    const allowedBefore = await settled(hostNs);
    const allowed = await pass(attacker, { full: true });
    expect(allowed.result.errors).toEqual([]);
    const still = skipsOf(allowed.result.decisions);
    expect([...still.keys()].sort()).toEqual([
      'apiserver',
      'metadata',
      'steal-node',
      'steal-victim',
    ]);
    expect(still.get('apiserver')).toContain('names it exactly');
    const copied = ['ext-ips', 'nodeport', 'lb', 'db'].map((n) => `Service/${copyOf(n)}`);
    expect(diffSnapshots(allowedBefore, await settled(hostNs))).toEqual({
      created: [...copied, `EndpointSlice/${copyOf('steal-own')}`].sort(),
      changed: [],
      deleted: [],
    });
    const lb = await attacker.hostApi.get(SERVICE, hostNs, copyOf('lb'));
    expect(lb?.metadata.annotations?.[CLOUD_KEY]).toBe('false');
    expect((await attacker.hostApi.get(SERVICE, hostNs, copyOf('ext-ips')))?.spec).toMatchObject({
      externalIPs: ['203.0.113.10'],
    });

    // Steady: the same Skips, no write.
    const steadyBefore = await snapshot(hostNs);
    const steady = await pass(attacker);
    expect(steady.result.errors).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
    expect([...skipsOf(steady.result.decisions).keys()].sort()).toEqual([
      'apiserver',
      'metadata',
      'steal-node',
      'steal-victim',
    ]);
    expect(diffSnapshots(steadyBefore, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });
});
