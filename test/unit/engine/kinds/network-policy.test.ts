/** The NetworkPolicy translator: its Pods and peers scoped; namespace selectors translated or refused. */
import { describe, expect, it } from '@jest/globals';
import { Labels } from '../../../../lib/engine/names/metadata.js';
import { hostOf, tenantObject, translated } from './support.js';

const policy = (spec: Record<string, unknown>) =>
  tenantObject('networking.k8s.io/v1', 'NetworkPolicy', { spec });
const own = { [Labels.Tenant]: 'dev', [Labels.VirtualNamespace]: 'shop' };
const tenantWide = { [Labels.Tenant]: 'dev' };
const ports = [{ protocol: 'TCP', port: 5432 }];

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
                namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'billing' } },
                podSelector: { matchLabels: { app: 'api' } },
              },
              { ipBlock: { cidr: '192.0.2.0/24' } },
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
              { ipBlock: { cidr: '192.0.2.0/24' } },
            ],
          },
        ],
      },
    },
    {
      name: 'allow-all rules are kept as written',
      spec: { podSelector: {}, ingress: [{}], egress: [] },
      expected: { podSelector: { matchLabels: own }, ingress: [{}], egress: [] },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(policy(spec)).spec).toEqual(expected);
  });

  it('a namespace selected by a label the host cannot see refuses the policy, naming the peer', () => {
    const spec = {
      podSelector: {},
      ingress: [
        {
          from: [{ podSelector: {} }, { namespaceSelector: { matchLabels: { team: 'frontend' } } }],
        },
      ],
    };
    expect(translated(policy(spec))).toEqual({
      refused:
        'the peer spec.ingress[0].from[1] cannot be translated: its namespaceSelector selects namespaces by the label "team", which the host cannot see: only kubernetes.io/metadata.name can be translated',
    });
  });
});
