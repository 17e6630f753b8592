/**
 * Issue 28, finding 5, on the real clusters, with an attacker and a victim TenantCluster sharing
 * one host namespace. NetworkPolicies are additive, so a copy can only open traffic: an `ipBlock`
 * outside the policy's blocks (the metadata endpoint, everything), a rule without peers (from or to
 * everywhere) and a peer naming a namespace whose Pods are not on the host (the tenant's
 * `kube-system`, a host namespace the policy does not map, which the tenant does not have) are
 * Skips naming the rule or peer, with no host object; a block inside the policy's, a peer mapped
 * to a host namespace (`networkPolicies.hostNamespaces`), a peer of another of the tenant's
 * namespaces and a peer of the tenant's own Pods are copied. A
 * uid/resourceVersion snapshot of the host namespace shows nothing else changed (the victim's
 * copy untouched), and the next pass decides the same Skips with no write.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import { createTenant, diffSnapshots, pass, tenantObject, useApis } from './support.js';

const apis = useApis();
const NETWORK_POLICY: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };
const byName = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });
const web = { protocol: 'TCP', port: 80 };
const dns = { protocol: 'UDP', port: 53 };

type Spec = Record<string, unknown>;

/** Hostile policies: name, spec, what the Skip says. */
const HOSTILE: Array<[string, Spec, string]> = [
  [
    'metadata',
    { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '169.254.169.254/32' } }] }] },
    'the peer spec.egress[0].to[0] cannot go to the host: its ipBlock.cidr "169.254.169.254/32" is not inside an address block the policy allows (spec.workloads.networkPolicies.cidrs: 10.30.0.0/16)',
  ],
  [
    'everything',
    {
      podSelector: {},
      ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.30.0.0/16'] } }] }],
    },
    'the peer spec.ingress[0].from[0] cannot go to the host: its ipBlock.cidr "0.0.0.0/0" is not inside',
  ],
  [
    'peerless',
    { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [web] }] },
    "the rule spec.ingress[0] has no from: on the host it would allow traffic from everywhere (other tenants' Pods, the nodes, the host network); name its peers",
  ],
  [
    'dns-anywhere',
    { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [dns] }] },
    'the rule spec.egress[0] has no to: on the host it would allow traffic to everywhere',
  ],
  [
    'tenant-kube-system',
    {
      podSelector: {},
      egress: [{ to: [{ namespaceSelector: byName('kube-system') }], ports: [dns] }],
    },
    'the peer spec.egress[0].to[0] cannot go to the host: its namespaceSelector names kube-system, a tenant system namespace whose Pods are never synced, so on the host it would match nothing; map it to the host namespace it means in spec.workloads.networkPolicies.hostNamespaces',
  ],
];

describe('NetworkPolicies within the policy', () => {
  it('ipBlocks outside the allowed blocks, peerless rules and peers matching nothing on the host are Skips naming them; allowed ones are copied; nothing else changes', async () => {
    const victim = await createTenant(apis(), 'in-victim', { toHost: [NETWORK_POLICY] });
    const hostNs = victim.hostNamespace;
    const controllers = `in-ingress-${victim.name}`;
    const attacker = await createTenant(apis(), 'in-attacker', {
      toHost: [NETWORK_POLICY],
      hostNamespace: hostNs,
      workloads: {
        networkPolicies: {
          cidrs: ['10.30.0.0/16'],
          hostNamespaces: { 'ingress-nginx': controllers },
        },
      },
    });
    await victim.tenantApi.create(
      tenantObject(victim, NETWORK_POLICY, victim.vns.a, 'deny', {
        spec: { podSelector: {}, policyTypes: ['Ingress'] },
      }),
    );
    expect((await pass(victim)).result.errors).toEqual([]);

    const ns = attacker.vns.a;
    // A host namespace the policy does not map, and the tenant does not have: until it does.
    const edge = `edge-${attacker.name}`;
    const hostile: Array<[string, Spec, string]> = [
      ...HOSTILE,
      [
        'host-edge',
        { podSelector: {}, ingress: [{ from: [{ namespaceSelector: byName(edge) }] }] },
        `the peer spec.ingress[0].from[0] cannot go to the host: its namespaceSelector names ${edge}, which is not a namespace of the tenant: if it means a host namespace (an ingress controller's, the host DNS), on the host the peer would match nothing; map it to that host namespace in spec.workloads.networkPolicies.hostNamespaces`,
      ],
    ];
    for (const [name, spec] of hostile) {
      await attacker.tenantApi.create(tenantObject(attacker, NETWORK_POLICY, ns, name, { spec }));
    }
    const allowed: Array<[string, Spec]> = [
      [
        'inside',
        {
          podSelector: {},
          egress: [{ to: [{ ipBlock: { cidr: '10.30.4.0/24', except: ['10.30.4.1/32'] } }] }],
        },
      ],
      [
        'from-controller',
        {
          podSelector: { matchLabels: { app: 'web' } },
          ingress: [
            {
              from: [
                {
                  namespaceSelector: byName('ingress-nginx'),
                  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
                },
              ],
              ports: [web],
            },
          ],
        },
      ],
      [
        'from-sibling',
        { podSelector: {}, ingress: [{ from: [{ namespaceSelector: byName(attacker.vns.b) }] }] },
      ],
      [
        'own-pods',
        {
          podSelector: { matchLabels: { app: 'db' } },
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }],
        },
      ],
    ];
    for (const [name, spec] of allowed) {
      await attacker.tenantApi.create(tenantObject(attacker, NETWORK_POLICY, ns, name, { spec }));
    }
    const before = await snapshot(hostNs);

    const { result } = await pass(attacker);
    expect(result.errors).toEqual([]);
    const skips = result.decisions.filter((d) => d.action === 'Skip');
    for (const [name, , says] of hostile) {
      expect(skips).toContainEqual(
        expect.objectContaining({
          tenantRef: { namespace: ns, name },
          reason: expect.stringContaining(says),
        }),
      );
    }
    expect(skips).toHaveLength(hostile.length);
    const copy = (name: string) => hostName(name, ns, attacker.name);
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: allowed.map(([name]) => `NetworkPolicy/${copy(name)}`).sort(),
      changed: [],
      deleted: [],
    });
    // The mapped peer selects the host namespace's Pods by their own (host) labels.
    const mapped = await attacker.hostApi.get(NETWORK_POLICY, hostNs, copy('from-controller'));
    expect((mapped?.spec as { ingress?: unknown[] } | undefined)?.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: byName(controllers),
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
          },
        ],
        ports: [web],
      },
    ]);
    const inside = await attacker.hostApi.get(NETWORK_POLICY, hostNs, copy('inside'));
    expect((inside?.spec as { egress?: unknown[] } | undefined)?.egress).toEqual([
      { to: [{ ipBlock: { cidr: '10.30.4.0/24', except: ['10.30.4.1/32'] } }] },
    ]);

    // Steady: the same Skips, no write, for the attacker and the victim.
    const settled = await snapshot(hostNs);
    const again = await pass(attacker, { full: true });
    expect(again.result.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
    expect(again.result.decisions).toHaveLength(hostile.length);
    const steady = await pass(victim, { full: true });
    expect(steady.result.decisions).toEqual([]);
    expect(diffSnapshots(settled, await snapshot(hostNs))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });

    // The tenant creates the namespace the peer names: the next pass (not asked to be full)
    // copies the policy, its peer scoped to that tenant namespace's copies.
    const created = await attacker.tenantApi.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: edge },
    });
    const placed = await pass(attacker);
    expect(placed.result.errors).toEqual([]);
    expect(placed.result.decisions.filter((d) => d.action !== 'Skip')).toEqual([
      expect.objectContaining({
        action: 'Create',
        tenantRef: { namespace: ns, name: 'host-edge' },
      }),
    ]);
    const edgeCopy = await attacker.hostApi.get(NETWORK_POLICY, hostNs, copy('host-edge'));
    expect(JSON.stringify(edgeCopy?.spec)).toContain(`"values":["${edge}"]`);
    expect(await attacker.hostApi.get(NETWORK_POLICY, hostNs, copy('from-sibling'))).toBeDefined();
    await attacker.tenantApi.delete(created, undefined, edge, {
      uid: created.metadata.uid as string,
    });
  });
});
