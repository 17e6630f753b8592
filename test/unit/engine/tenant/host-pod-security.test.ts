/** The host namespace's own Pod Security admission, read by a pass that syncs Pods. */
import { describe, expect, it } from '@jest/globals';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import {
  enforcesAtLeast,
  readHostPodSecurity,
} from '../../../../lib/engine/tenant/host-pod-security.js';
import { ClusterError, type ClusterErrorReason } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { HOST_NS, TENANT } from '../support.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const ENFORCE = 'pod-security.kubernetes.io/enforce';

const policy = (toHost: unknown[], workloads?: Record<string, unknown>) =>
  parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, toHost, ...(workloads ? { workloads } : {}) });

const hostWith = (labels?: Record<string, string>) =>
  new MemoryCluster('host').seed({
    ...NAMESPACE,
    metadata: { name: HOST_NS, ...(labels ? { labels } : {}) },
  });

describe('enforcesAtLeast', () => {
  it.each([
    [undefined, 'baseline', false],
    ['privileged', 'baseline', false],
    ['baseline', 'baseline', true],
    ['restricted', 'baseline', true],
    ['baseline', 'restricted', false],
    ['restricted', 'restricted', true],
    ['Baseline', 'baseline', false],
    ['', 'baseline', false],
  ] as const)('label %p, level %p: %p', (enforced, level, expected) => {
    expect(enforcesAtLeast(enforced, level)).toBe(expected);
  });
});

describe('readHostPodSecurity', () => {
  it('reads the host namespace’s enforce label, by name, when Pods are synced', async () => {
    const host = hostWith({ [ENFORCE]: 'baseline' });
    expect(await readHostPodSecurity(host, policy([POD]))).toEqual({
      needed: true,
      level: 'baseline',
      hostNamespace: HOST_NS,
      enforced: 'baseline',
    });
    expect(host.calls).toMatchObject([
      { method: 'get', kind: 'Namespace', namespace: undefined, name: HOST_NS },
    ]);
  });

  it('a namespace without the label (or none at all) enforces nothing', async () => {
    const found = await readHostPodSecurity(
      hostWith(),
      policy([POD], { podSecurity: 'restricted' }),
    );
    expect(found).toEqual({
      needed: true,
      level: 'restricted',
      hostNamespace: HOST_NS,
      enforced: undefined,
    });
    const none = await readHostPodSecurity(new MemoryCluster('host'), policy([POD]));
    expect(none).toMatchObject({ needed: true, enforced: undefined });
  });

  it.each([
    ['no Pods synced', policy([CONFIGMAP]), 'the policy syncs no Pods'],
    [
      'the privileged level',
      policy([POD], { allowHostAccess: true }),
      'the policy’s Pod Security level is privileged',
    ],
  ])('%s: no wall is asked for, and nothing is read', async (_name, subject, why) => {
    const host = hostWith();
    expect(await readHostPodSecurity(host, subject)).toEqual({ needed: false, why });
    expect(host.calls).toEqual([]);
  });

  const failing = (reason: ClusterErrorReason) =>
    hostWith().failWhen(() => new ClusterError(reason, `${reason} happened`, { status: 500 }));

  it('a refused read names the grant', async () => {
    expect(await readHostPodSecurity(failing('Forbidden'), policy([POD]))).toEqual({
      needed: true,
      level: 'baseline',
      hostNamespace: HOST_NS,
      unreadable: `Forbidden happened (grant the host identity \`get\` on namespaces, resourceNames [${HOST_NS}]: deploy/rbac/host-cluster/host-cluster.yaml)`,
    });
  });

  it('any other failure tells nothing (the recorded condition stands)', async () => {
    expect(await readHostPodSecurity(failing('Transport'), policy([POD]))).toBeUndefined();
  });
});
