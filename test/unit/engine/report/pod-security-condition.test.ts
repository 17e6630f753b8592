/** The `HostPodSecurity` condition: the host's own Pod Security admission, as a pass found it. */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { hostPodSecurityConditions } from '../../../../lib/engine/report/pod-security-condition.js';
import type { HostPodSecurity } from '../../../../lib/engine/tenant/host-pod-security.js';
import type { Condition } from '../../../../lib/engine/tenant/status.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { clusters, HOST_NS, TENANT } from '../support.js';

const NS = 'tenant-dev';
const LABEL = 'pod-security.kubernetes.io/enforce';
const read = (level: 'baseline' | 'restricted', enforced?: string): HostPodSecurity => ({
  needed: true,
  level,
  hostNamespace: NS,
  enforced,
});
const recorded = {
  conditions: [
    {
      type: 'HostPodSecurity',
      status: 'False',
      reason: 'NotEnforced',
      message: 'm',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ],
};

describe('hostPodSecurityConditions', () => {
  const cases: {
    name: string;
    found: HostPodSecurity | undefined;
    status?: unknown;
    expected: unknown[];
  }[] = [
    {
      name: 'a label as strict as the level: True, Enforced',
      found: read('baseline', 'baseline'),
      expected: [
        {
          type: 'HostPodSecurity',
          status: 'True',
          reason: 'Enforced',
          observedGeneration: 3,
          message: `the host namespace ${NS} enforces Pod Security "baseline" (${LABEL}), at least the policy's level "baseline"`,
        },
      ],
    },
    {
      name: 'a stricter label: True',
      found: read('baseline', 'restricted'),
      expected: [expect.objectContaining({ status: 'True', reason: 'Enforced' })],
    },
    {
      name: 'no label: False, NotEnforced, with the command that adds it',
      found: read('baseline'),
      expected: [
        expect.objectContaining({
          status: 'False',
          reason: 'NotEnforced',
          message: expect.stringContaining(
            `has no ${LABEL} label at least as strict as the policy's level "baseline" (it has none)`,
          ),
        }),
      ],
    },
    {
      name: 'a label lower than the level: False, naming it and the command',
      found: read('restricted', 'baseline'),
      expected: [
        expect.objectContaining({
          status: 'False',
          message: expect.stringMatching(
            /\(it has "baseline"\).*kubectl label namespace tenant-dev pod-security\.kubernetes\.io\/enforce=restricted --overwrite/,
          ),
        }),
      ],
    },
    {
      name: 'unreadable: Unknown, with why',
      found: {
        needed: true,
        level: 'baseline',
        hostNamespace: NS,
        unreadable: 'Forbidden (grant ...)',
      },
      expected: [
        expect.objectContaining({
          status: 'Unknown',
          reason: 'HostNamespaceUnreadable',
          message: `could not read the host namespace ${NS} for its ${LABEL} label: Forbidden (grant ...)`,
        }),
      ],
    },
    { name: 'a read that told nothing: no condition', found: undefined, expected: [] },
    {
      name: 'not needed and never reported: no condition (a tenant without Pods has none)',
      found: { needed: false, why: 'the policy syncs no Pods' },
      expected: [],
    },
    {
      name: 'not needed any more, reported before: True, NotNeeded',
      found: { needed: false, why: 'the policy syncs no Pods' },
      status: recorded,
      expected: [
        {
          type: 'HostPodSecurity',
          status: 'True',
          reason: 'NotNeeded',
          observedGeneration: 3,
          message: 'the policy syncs no Pods',
        },
      ],
    },
  ];

  it.each(cases)('$name', ({ found, status, expected }) => {
    expect(hostPodSecurityConditions(found, status, 3)).toEqual(expected);
  });
});

describe('a pass reports HostPodSecurity', () => {
  const POD = { apiVersion: 'v1', kind: 'Pod' };
  const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
  const conditionOf = (hostApi: MemoryCluster) =>
    (
      (hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as { conditions?: Condition[] })
        ?.conditions ?? []
    ).find((c) => c.type === 'HostPodSecurity');

  it('False without the label, True once a full pass finds it; a converged pass writes no status', async () => {
    const { tenantApi, hostApi } = clusters([], [{ ...NAMESPACE, metadata: { name: HOST_NS } }], {
      toHost: [POD],
    });
    const run = (path?: 'full') =>
      runPass({ tenant: TENANT, tenantApi, hostApi, lease: false, ...(path ? { path } : {}) });
    await run();
    expect(conditionOf(hostApi)).toMatchObject({ status: 'False', reason: 'NotEnforced' });

    const ns = hostApi.peek(NAMESPACE, undefined, HOST_NS) as KubeObject;
    hostApi.replace({
      ...ns,
      metadata: { ...ns.metadata, labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } },
    });
    // A resumed pass follows the tenant's changes and leaves the recorded condition alone.
    const resumed = await run();
    expect(resumed.path).toBe('resumed');
    expect(conditionOf(hostApi)).toMatchObject({ status: 'False' });
    // A full pass reads the label again.
    await run('full');
    expect(conditionOf(hostApi)).toMatchObject({ status: 'True', reason: 'Enforced' });

    // Converged: the condition costs no status write, and a resumed pass reads no namespace.
    await run();
    const calls = hostApi.calls.length;
    const settled = await run();
    expect(settled.statusWritten).toBe(false);
    expect(hostApi.calls.slice(calls).filter((c) => c.kind === 'Namespace')).toEqual([]);
  });

  it('a tenant that syncs no Pods reads no namespace and gets no such condition', async () => {
    const { tenantApi, hostApi } = clusters([], [], {
      toHost: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
    });
    await runPass({ tenant: TENANT, tenantApi, hostApi, lease: false });
    expect(conditionOf(hostApi)).toBeUndefined();
    expect(hostApi.calls.filter((c) => c.kind === 'Namespace')).toEqual([]);
  });
});
