/**
 * Which namespace names of a NetworkPolicy's peers only the tenant's namespace list can place:
 * those neither mapped to a host namespace nor a tenant system namespace.
 */
import { describe, expect, it } from '@jest/globals';
import { namespacesToPlace } from '../../../../../lib/engine/kinds/network-policy/network-policy-namespaces.js';
import { parseIsolation } from '../../../../../lib/engine/policy/isolation.js';
import { tenantObject } from '../support.js';

const byName = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });
const policy = (spec: Record<string, unknown>) =>
  tenantObject('networking.k8s.io/v1', 'NetworkPolicy', { spec });

function limits(hostNamespaces: Record<string, string>) {
  const problems: string[] = [];
  const isolation = parseIsolation({ networkPolicies: { hostNamespaces } }, false, problems);
  expect(problems).toEqual([]);
  return isolation.networkPolicies;
}

describe('namespacesToPlace', () => {
  const cases = [
    {
      name: 'names of both directions, the mapped and the system ones left out',
      spec: {
        ingress: [
          { from: [{ namespaceSelector: byName('shop') }, { namespaceSelector: byName('edge') }] },
        ],
        egress: [
          { to: [{ namespaceSelector: byName('kube-system') }] },
          { to: [{ namespaceSelector: byName('traefik'), podSelector: {} }] },
        ],
      },
      expected: ['shop', 'traefik'],
    },
    {
      name: 'an In list, less its NotIn names',
      spec: {
        ingress: [
          {
            from: [
              {
                namespaceSelector: {
                  matchExpressions: [
                    { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a', 'b'] },
                    { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['b'] },
                  ],
                },
              },
            ],
          },
        ],
      },
      expected: ['a'],
    },
    {
      name: 'pod selectors, ipBlocks, open and label selectors name none',
      spec: {
        ingress: [
          {
            from: [
              { podSelector: {} },
              { ipBlock: { cidr: '10.0.0.0/8' }, namespaceSelector: byName('x') },
              { namespaceSelector: {} },
              { namespaceSelector: { matchLabels: { team: 'a' } } },
            ],
          },
        ],
      },
      expected: [],
    },
    { name: 'a policy without rules', spec: { podSelector: {} }, expected: [] },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    const names = namespacesToPlace(policy(spec), limits({ edge: 'ingress-nginx' }));
    expect([...names].sort()).toEqual(expected);
  });
});
