/**
 * Where a tenant Pod may ask to run on the host: a toleration or node label the policy does not
 * allow (`spec.workloads.scheduling`) is a Skip naming the field; the condition taints' tolerations
 * the apiserver adds, the policy's own tolerations and selector, the labels a tenant Node shows, a
 * node's name and expressions that only keep a Pod away are always allowed; a DaemonSet's cordon
 * toleration is left off the host copy unless the policy allows it.
 */
import { describe, expect, it } from '@jest/globals';
import { placementRefusal } from '../../../../../../lib/engine/kinds/pod/translate/placement.js';
import {
  parseWorkloadPolicy,
  type WorkloadPolicy,
} from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { tenantObject, translated } from '../../support.js';

type Spec = Record<string, unknown>;

function policy(spec: Spec): WorkloadPolicy {
  const problems: string[] = [];
  const parsed = parseWorkloadPolicy(spec, problems);
  expect(problems).toEqual([]);
  return parsed;
}

const pod = (spec: Spec, metadata: Partial<KubeObject['metadata']> = {}) =>
  tenantObject(
    'v1',
    'Pod',
    {
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'c', image: 'i' }],
        ...spec,
      },
    },
    metadata,
  );

/** What the tenant's apiserver adds to every Pod (`DefaultTolerationSeconds`). */
const DEFAULT_SECONDS = ['not-ready', 'unreachable'].map((c) => ({
  key: `node.kubernetes.io/${c}`,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
}));
/** What a DaemonSet controller adds to its Pods beside those. */
const DAEMON_SET = [
  ...DEFAULT_SECONDS.map(({ tolerationSeconds: _, ...t }) => t),
  ...['disk-pressure', 'memory-pressure', 'pid-pressure', 'unschedulable'].map((c) => ({
    key: `node.kubernetes.io/${c}`,
    operator: 'Exists',
    effect: 'NoSchedule',
  })),
];
const CORDON = {
  key: 'node.kubernetes.io/unschedulable',
  operator: 'Exists',
  effect: 'NoSchedule',
};
const DS_OWNER = {
  ownerReferences: [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds', controller: true },
  ],
};

const taint = (key: string, at: number, what: string) =>
  `the Pod tolerates the taint "${key}" (spec.tolerations[${at}]: ${what}), which would let it onto nodes the operator set aside for others, and the policy does not allow it (spec.workloads.scheduling.tolerations); only the condition taints' tolerations the apiserver adds are allowed by default`;
const label = (key: string, values: string, path: string) =>
  `the Pod selects nodes by label "${key}"${values} (${path}), which the policy does not allow (spec.workloads.scheduling.nodeLabels): the operator's node labels may set nodes aside for others; only the labels a tenant Node shows (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch, topology.kubernetes.io/zone, topology.kubernetes.io/region, node.kubernetes.io/instance-type) are allowed by default`;
const REQ = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
const PREF = 'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution';
const required = (...matchExpressions: Spec[]) => ({
  affinity: {
    nodeAffinity: {
      [REQ.split('.').at(-1) as string]: { nodeSelectorTerms: [{ matchExpressions }] },
    },
  },
});
const preferred = (...matchExpressions: Spec[]) => ({
  affinity: {
    nodeAffinity: {
      [PREF.split('.').at(-1) as string]: [{ weight: 1, preference: { matchExpressions } }],
    },
  },
});

describe('tolerations a tenant Pod may carry', () => {
  const cases: Array<{
    name: string;
    spec: Spec;
    workloads?: Spec;
    meta?: Partial<KubeObject['metadata']>;
    expected?: string;
  }> = [
    { name: 'the tenant apiserver’s defaults: allowed', spec: { tolerations: DEFAULT_SECONDS } },
    {
      name: 'a condition taint without seconds, Equal with no value: allowed',
      spec: { tolerations: [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }] },
    },
    {
      name: 'the keyed toleration of a dedicated node: refused',
      spec: { tolerations: [...DEFAULT_SECONDS, { key: 'dedicated', operator: 'Exists' }] },
      expected: taint('dedicated', 2, 'operator Exists'),
    },
    {
      name: 'the control plane’s taint: refused',
      spec: {
        tolerations: [
          {
            key: 'node-role.kubernetes.io/control-plane',
            operator: 'Exists',
            effect: 'NoSchedule',
          },
        ],
      },
      expected: taint(
        'node-role.kubernetes.io/control-plane',
        0,
        'operator Exists, effect NoSchedule',
      ),
    },
    {
      name: 'a cordon on a Pod of its own: refused',
      spec: { tolerations: [CORDON] },
      expected: taint('node.kubernetes.io/unschedulable', 0, 'operator Exists, effect NoSchedule'),
    },
    {
      name: 'a condition taint of another effect than the apiserver adds: refused',
      spec: { tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] },
      expected: taint('node.kubernetes.io/not-ready', 0, 'operator Exists'),
    },
    {
      name: 'a DaemonSet’s Pod with what its controller adds: allowed (the cordon is left off)',
      spec: { tolerations: DAEMON_SET },
      meta: DS_OWNER,
    },
    {
      name: 'a listed Exists covers Equal of any value for its key and effect',
      spec: {
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'tenants', effect: 'NoSchedule' },
        ],
      },
      workloads: {
        scheduling: {
          tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    },
    {
      name: 'a listed effect does not cover a toleration of every effect',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
      workloads: {
        scheduling: {
          tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
      expected: taint('dedicated', 0, 'operator Exists'),
    },
    {
      name: 'a listed Equal covers its value only',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'other' }] },
      workloads: { scheduling: { tolerations: [{ key: 'dedicated', value: 'tenants' }] } },
      expected: taint('dedicated', 0, 'operator Equal, value "other"'),
    },
    {
      name: 'a listed Equal does not cover Exists',
      spec: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] },
      workloads: { scheduling: { tolerations: [{ key: 'dedicated', value: 'tenants' }] } },
      expected: taint('dedicated', 0, 'operator Exists'),
    },
    {
      name: 'a listed NoExecute with seconds covers no longer stay',
      spec: {
        tolerations: [
          { key: 'spot', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 600 },
        ],
      },
      workloads: {
        scheduling: {
          tolerations: [
            { key: 'spot', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
          ],
        },
      },
      expected: taint('spot', 0, 'operator Exists, effect NoExecute'),
    },
    {
      name: 'the policy’s own tolerations may be written by the tenant too',
      spec: {
        tolerations: [{ key: 'pool', operator: 'Equal', value: 'tenants', effect: 'NoSchedule' }],
      },
      workloads: {
        tolerations: [{ key: 'pool', operator: 'Equal', value: 'tenants', effect: 'NoSchedule' }],
      },
    },
    {
      name: 'a cordon the policy allows is kept on a DaemonSet’s Pod',
      spec: { tolerations: [CORDON] },
      workloads: { scheduling: { tolerations: [CORDON] } },
      meta: DS_OWNER,
    },
  ];
  it.each(cases)('$name', ({ spec, workloads, meta, expected }) => {
    const wl = workloads ? policy(workloads) : undefined;
    expect(placementRefusal(spec, meta, wl)).toBe(expected);
    const result = translated(pod(spec, meta), wl);
    expect('refused' in result ? result.refused : undefined).toBe(expected);
  });

  it('a DaemonSet’s cordon toleration is left off its host copy, unless allowed', () => {
    const tolerationsOf = (wl?: WorkloadPolicy) => {
      const result = translated(pod({ tolerations: DAEMON_SET }, DS_OWNER), wl);
      if (!('host' in result)) throw new Error(result.refused);
      return (result.host.spec as Spec).tolerations;
    };
    expect(tolerationsOf()).toEqual(DAEMON_SET.filter((t) => t.key !== CORDON.key));
    expect(tolerationsOf(policy({ scheduling: { tolerations: [CORDON] } }))).toEqual(DAEMON_SET);
  });
});

describe('node labels a tenant Pod may select on', () => {
  const cases: Array<{ name: string; spec: Spec; workloads?: Spec; expected?: string }> = [
    {
      name: 'the labels a tenant Node shows',
      spec: { nodeSelector: { 'kubernetes.io/os': 'linux' } },
    },
    {
      name: 'another customer’s label: refused',
      spec: { nodeSelector: { 'kubernetes.io/os': 'linux', customer: 'acme-corp' } },
      expected: label('customer', ' = "acme-corp"', 'spec.nodeSelector.customer'),
    },
    {
      name: 'a listed key: any value',
      spec: { nodeSelector: { disk: 'ssd' } },
      workloads: { scheduling: { nodeLabels: ['disk'] } },
    },
    {
      name: 'a listed key=value: that value',
      spec: { nodeSelector: { customer: 'me' } },
      workloads: { scheduling: { nodeLabels: ['customer=me'] } },
    },
    {
      name: 'a listed key=value: no other value',
      spec: { nodeSelector: { customer: 'acme-corp' } },
      workloads: { scheduling: { nodeLabels: ['customer=me'] } },
      expected: label('customer', ' = "acme-corp"', 'spec.nodeSelector.customer'),
    },
    {
      name: 'a key the policy’s own selector sets (its value wins on the host anyway)',
      spec: { nodeSelector: { pool: 'gpu' } },
      workloads: { nodeSelector: { pool: 'tenants' } },
    },
    {
      name: 'required In: refused, naming the expression',
      spec: required({ key: 'customer', operator: 'In', values: ['acme-corp', 'me'] }),
      workloads: { scheduling: { nodeLabels: ['customer=me'] } },
      expected: label(
        'customer',
        ' = "acme-corp" or "me"',
        `${REQ}.nodeSelectorTerms[0].matchExpressions[0]`,
      ),
    },
    {
      name: 'required In of listed values: allowed',
      spec: required({ key: 'customer', operator: 'In', values: ['me'] }),
      workloads: { scheduling: { nodeLabels: ['customer=me'] } },
    },
    {
      name: 'Exists needs the whole key',
      spec: required({ key: 'customer', operator: 'Exists' }),
      workloads: { scheduling: { nodeLabels: ['customer=me'] } },
      expected: label('customer', '', `${REQ}.nodeSelectorTerms[0].matchExpressions[0]`),
    },
    {
      name: 'Gt on a key not listed: refused',
      spec: required(
        { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] },
        { key: 'cores', operator: 'Gt', values: ['8'] },
      ),
      expected: label('cores', '', `${REQ}.nodeSelectorTerms[0].matchExpressions[1]`),
    },
    {
      name: 'NotIn and DoesNotExist only keep the Pod away: allowed',
      spec: required(
        { key: 'eks.amazonaws.com/compute-type', operator: 'NotIn', values: ['fargate'] },
        { key: 'customer', operator: 'DoesNotExist' },
      ),
    },
    {
      name: 'a node by name (matchFields, as a DaemonSet’s Pods): allowed',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] },
              ],
            },
          },
        },
      },
    },
    {
      name: 'a preference for another customer’s nodes: refused',
      spec: preferred({ key: 'customer', operator: 'In', values: ['acme-corp'] }),
      expected: label('customer', ' = "acme-corp"', `${PREF}[0].preference.matchExpressions[0]`),
    },
    {
      name: 'a preference for a zone: allowed',
      spec: preferred({ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }),
    },
  ];
  it.each(cases)('$name', ({ spec, workloads, expected }) => {
    const wl = workloads ? policy(workloads) : undefined;
    expect(placementRefusal(spec, undefined, wl)).toBe(expected);
    const result = translated(pod(spec), wl);
    expect('refused' in result ? result.refused : undefined).toBe(expected);
  });
});
