/**
 * The NetworkPolicy translator: its Pods and peers scoped; namespace selectors translated, mapped
 * to host namespaces or refused; ipBlocks only inside the policy's blocks; peerless rules refused.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { translate } from '../../../../../lib/engine/kinds/registry.js';
import { Labels } from '../../../../../lib/engine/names/metadata.js';
import { parseIsolation } from '../../../../../lib/engine/policy/isolation.js';
import { HOST_NAMESPACE, TENANT, tenantObject, translated } from '../support.js';

const policy = (spec: Record<string, unknown>) =>
  tenantObject('networking.k8s.io/v1', 'NetworkPolicy', { spec });
const own = { [Labels.Tenant]: 'dev', [Labels.VirtualNamespace]: 'shop' };
const tenantWide = { [Labels.Tenant]: 'dev' };
const ports = [{ protocol: 'TCP', port: 5432 }];
const byName = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });

/** The tenant's namespaces, as the kind's turn reads them. */
const TENANT_NAMESPACES: ReadonlySet<string> = new Set(['shop', 'billing', 'kube-system']);

/** The translation under `spec.workloads.networkPolicies` = `limits`. */
function under(
  limits: Record<string, unknown>,
  spec: Record<string, unknown>,
  tenantNamespaces: ReadonlySet<string> | null = TENANT_NAMESPACES,
) {
  const problems: string[] = [];
  const isolation = parseIsolation({ networkPolicies: limits }, false, problems);
  expect(problems).toEqual([]);
  return translate(policy(spec), {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: { isolation },
    ...(tenantNamespaces === null ? {} : { tenantNamespaces }),
  });
}

const LIMITS = {
  cidrs: ['10.20.0.0/16', 'fd00:20::/32'],
  hostNamespaces: { 'ingress-nginx': 'ingress-nginx', dns: 'kube-system' },
};

describe('NetworkPolicy translator', () => {
  const cases = [
    {
      name: 'deny all: every Pod of the virtual namespace, not of the host namespace',
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
      expected: { podSelector: { matchLabels: own }, policyTypes: ['Ingress'] },
    },
    {
      name: 'a pod-selector peer stays in the virtual namespace',
      spec: {
        podSelector: { matchLabels: { app: 'db' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports }],
      },
      expected: {
        podSelector: { matchLabels: { app: 'db', ...own } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web', ...own } } }], ports }],
      },
    },
    {
      name: 'every namespace ({}) is every virtual namespace of the tenant',
      spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }] }] },
      expected: {
        podSelector: { matchLabels: own },
        ingress: [{ from: [{ podSelector: { matchLabels: tenantWide } }] }],
      },
    },
    {
      name: 'a namespace by name, with a pod selector, is that virtual namespace’s Pods',
      spec: {
        podSelector: {},
        egress: [
          {
            to: [
              {
                namespaceSelector: byName('billing'),
                podSelector: { matchLabels: { app: 'api' } },
              },
            ],
          },
        ],
      },
      expected: {
        podSelector: { matchLabels: own },
        egress: [
          {
            to: [
              {
                podSelector: {
                  matchLabels: { app: 'api', ...tenantWide },
                  matchExpressions: [
                    { key: Labels.VirtualNamespace, operator: 'In', values: ['billing'] },
                  ],
                },
              },
            ],
          },
        ],
      },
    },
    {
      name: 'deny-all directions (empty rule lists) are kept as written',
      spec: { podSelector: {}, ingress: [], egress: [] },
      expected: { podSelector: { matchLabels: own }, ingress: [], egress: [] },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    const result = under({}, spec);
    expect('host' in result && result.host.spec).toEqual(expected);
  });

  const allowed = [
    {
      name: 'an ipBlock inside an allowed block, its except kept',
      peer: { ipBlock: { cidr: '10.20.1.0/24', except: ['10.20.1.5/32'] } },
      host: { ipBlock: { cidr: '10.20.1.0/24', except: ['10.20.1.5/32'] } },
    },
    {
      name: 'an ipBlock equal to an allowed block',
      peer: { ipBlock: { cidr: '10.20.0.0/16' } },
      host: { ipBlock: { cidr: '10.20.0.0/16' } },
    },
    {
      name: 'an IPv6 ipBlock inside an allowed block',
      peer: { ipBlock: { cidr: 'fd00:20:1::/48' } },
      host: { ipBlock: { cidr: 'fd00:20:1::/48' } },
    },
    {
      name: 'a mapped namespace: its host namespace, the pod selector as written (host labels)',
      peer: {
        namespaceSelector: byName('ingress-nginx'),
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
      },
      host: {
        namespaceSelector: byName('ingress-nginx'),
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
      },
    },
    {
      name: 'a mapped namespace without a pod selector: every Pod of the host namespace',
      peer: { namespaceSelector: byName('dns') },
      host: { namespaceSelector: byName('kube-system') },
    },
    {
      name: 'two mapped namespaces by In: both host namespaces',
      peer: {
        namespaceSelector: {
          matchExpressions: [
            {
              key: 'kubernetes.io/metadata.name',
              operator: 'In',
              values: ['ingress-nginx', 'dns'],
            },
          ],
        },
      },
      host: {
        namespaceSelector: {
          matchExpressions: [
            {
              key: 'kubernetes.io/metadata.name',
              operator: 'In',
              values: ['ingress-nginx', 'kube-system'],
            },
          ],
        },
      },
    },
  ];
  it.each(allowed)('allowed by the policy: $name', ({ peer, host }) => {
    const result = under(LIMITS, { podSelector: {}, egress: [{ to: [peer], ports }] });
    expect(result).toEqual({ host: expect.anything() });
    if (!('host' in result)) return;
    expect(result.host.spec).toEqual({
      podSelector: { matchLabels: own },
      egress: [{ to: [host], ports }],
    });
  });

  const refused = [
    {
      name: 'the metadata endpoint, no blocks allowed',
      limits: {},
      spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '169.254.169.254/32' } }] }] },
      says: 'the peer spec.egress[0].to[0] cannot go to the host: its ipBlock.cidr "169.254.169.254/32" is not inside an address block the policy allows (spec.workloads.networkPolicies.cidrs: none)',
    },
    {
      name: 'everything (0.0.0.0/0), even with an except',
      limits: LIMITS,
      spec: {
        podSelector: {},
        ingress: [
          {
            from: [{ podSelector: {} }, { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }],
          },
        ],
      },
      says: 'the peer spec.ingress[0].from[1] cannot go to the host: its ipBlock.cidr "0.0.0.0/0" is not inside an address block the policy allows (spec.workloads.networkPolicies.cidrs: 10.20.0.0/16, fd00:20::/32)',
    },
    {
      name: 'a block wider than the allowed one',
      limits: LIMITS,
      spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }] },
      says: 'spec.egress[0].to[0] cannot go to the host: its ipBlock.cidr "10.0.0.0/8"',
    },
    {
      name: 'an ingress rule without from (from everywhere)',
      limits: LIMITS,
      spec: { podSelector: {}, ingress: [{ ports }] },
      says: "the rule spec.ingress[0] has no from: on the host it would allow traffic from everywhere (other tenants' Pods, the nodes, the host network); name its peers",
    },
    {
      name: 'an allow-all ingress rule ({})',
      limits: LIMITS,
      spec: { podSelector: {}, ingress: [{}] },
      says: 'the rule spec.ingress[0] has no from',
    },
    {
      name: 'an egress rule with an empty to (DNS to anywhere)',
      limits: LIMITS,
      spec: {
        podSelector: {},
        egress: [{ to: [{ podSelector: {} }] }, { to: [], ports: [{ protocol: 'UDP', port: 53 }] }],
      },
      says: 'the rule spec.egress[1] has no to: on the host it would allow traffic to everywhere (the nodes, the host apiserver, the metadata endpoint, other tenants)',
    },
    {
      name: 'kube-system, not mapped: its Pods are not on the host',
      limits: {},
      spec: { podSelector: {}, egress: [{ to: [{ namespaceSelector: byName('kube-system') }] }] },
      says: 'the peer spec.egress[0].to[0] cannot go to the host: its namespaceSelector names kube-system, a tenant system namespace whose Pods are never synced, so on the host it would match nothing; map it to the host namespace it means in spec.workloads.networkPolicies.hostNamespaces',
    },
    {
      name: 'a host namespace the policy does not map (not a namespace of the tenant)',
      limits: LIMITS,
      spec: {
        podSelector: {},
        ingress: [{ from: [{ namespaceSelector: byName('traefik'), podSelector: {} }] }],
      },
      says: "the peer spec.ingress[0].from[0] cannot go to the host: its namespaceSelector names traefik, which is not a namespace of the tenant: if it means a host namespace (an ingress controller's, the host DNS), on the host the peer would match nothing; map it to that host namespace in spec.workloads.networkPolicies.hostNamespaces",
    },
    {
      name: 'a mapped and a tenant namespace in one peer',
      limits: LIMITS,
      spec: {
        podSelector: {},
        ingress: [
          {
            from: [
              {
                namespaceSelector: {
                  matchExpressions: [
                    {
                      key: 'kubernetes.io/metadata.name',
                      operator: 'In',
                      values: ['ingress-nginx', 'shop'],
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
      says: 'its namespaceSelector names both host namespaces (ingress-nginx, mapped by spec.workloads.networkPolicies.hostNamespaces) and tenant namespaces (shop); write one peer for each',
    },
    {
      name: 'a namespace the policy maps to the shared host namespace itself',
      limits: { hostNamespaces: { shared: HOST_NAMESPACE } },
      spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: byName('shared') }] }] },
      says: `maps a namespace it names to this tenant's own host namespace ${HOST_NAMESPACE}`,
    },
    {
      name: 'a namespace label the host cannot see',
      limits: LIMITS,
      spec: {
        podSelector: {},
        ingress: [
          {
            from: [
              { podSelector: {} },
              { namespaceSelector: { matchLabels: { team: 'frontend' } } },
            ],
          },
        ],
      },
      says: 'the peer spec.ingress[0].from[1] cannot go to the host: its namespaceSelector selects namespaces by the label "team", which the host cannot see: only kubernetes.io/metadata.name can be translated',
    },
  ];
  it.each(refused)('refused, naming the field: $name', ({ limits, spec, says }) => {
    const result = under(limits, spec);
    expect(result).toEqual({ refused: expect.stringContaining(says) });
  });

  it('by default (no knobs) an ipBlock and a host namespace are refused', () => {
    const spec = { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.20.0.0/24' } }] }] };
    expect(translated(policy(spec))).toEqual({ refused: expect.stringContaining('cidrs: none') });
    const dns = {
      podSelector: {},
      egress: [{ to: [{ namespaceSelector: byName('kube-public') }] }],
    };
    expect(translated(policy(dns))).toEqual({
      refused: expect.stringContaining('names kube-public, a tenant system namespace'),
    });
  });

  it('a namespace name cannot be placed when the tenant namespaces were not read', () => {
    const spec = { podSelector: {}, egress: [{ to: [{ namespaceSelector: byName('shop') }] }] };
    expect(under(LIMITS, spec, null)).toEqual({
      refused: expect.stringContaining("the tenant's namespaces could not be read"),
    });
    // A peer naming no namespace needs no list.
    const own = { podSelector: {}, egress: [{ to: [{ podSelector: {} }] }] };
    expect(under(LIMITS, own, null)).toHaveProperty('host');
  });

  it('an IPv4 block is never allowed by an IPv6 one, nor the other way round', () => {
    const spec = (cidr: string) => ({ podSelector: {}, egress: [{ to: [{ ipBlock: { cidr } }] }] });
    const v6only = { cidrs: ['::/0'] };
    expect(under(v6only, spec('10.0.0.0/8'))).toEqual({ refused: expect.any(String) });
    expect(under({ cidrs: ['0.0.0.0/0'] }, spec('fd00::/8'))).toEqual({
      refused: expect.any(String),
    });
  });

  it('property: an allowed ipBlock lies inside an allowed block, a refused one does not', () => {
    const octet = fc.integer({ min: 0, max: 255 });
    fc.assert(
      fc.property(octet, octet, fc.integer({ min: 0, max: 32 }), (a, b, prefix) => {
        const cidr = `10.${a}.${b}.0/${prefix}`;
        const result = under(LIMITS, {
          podSelector: {},
          egress: [{ to: [{ ipBlock: { cidr } }] }],
        });
        const inside = a === 20 && prefix >= 16;
        expect('host' in result).toBe(inside);
      }),
    );
  });
});
