/**
 * Nodes back, pure: the tenant Node of a host node (selected labels, resources, a Ready condition
 * mirroring the host's), what an existing tenant Node needs to show it (nothing for a heartbeat),
 * and a tenant Pod's binding.
 */
import { describe, expect, it } from '@jest/globals';
import {
  bindingNeed,
  isOurNode,
  nodeStatusPatch,
  nodesOf,
  planNode,
  podBinding,
  tenantNode,
} from '../../../../../../lib/engine/kinds/pod/node/node-copy.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';

const READY = {
  type: 'Ready',
  status: 'True',
  reason: 'KubeletReady',
  message: 'kubelet is posting ready status',
  lastHeartbeatTime: '2025-01-01T00:05:00Z',
  lastTransitionTime: '2025-01-01T00:00:00Z',
};

const hostNode: KubeObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'node-a',
    uid: 'host-node-uid',
    resourceVersion: '7',
    labels: {
      'kubernetes.io/hostname': 'node-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'topology.kubernetes.io/zone': 'eu-1a',
      'node.kubernetes.io/instance-type': 'm5.large',
      'team.example/pool': 'batch',
      'app.kubernetes.io/managed-by': 'kops',
    },
    annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
  },
  spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '4', memory: '16Gi', pods: '110' },
    allocatable: { cpu: '3900m', memory: '15Gi', pods: '110' },
    conditions: [{ type: 'MemoryPressure', status: 'False' }, READY],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
    nodeInfo: { kubeletVersion: 'v1.36.3' },
  },
};

const MARKS = {
  'app.kubernetes.io/managed-by': 'tenantplane',
  'tenantplane.io/from-host': 'true',
  'tenantplane.io/kind': 'Node',
};

/** The tenant Node as the tenant apiserver stores it. */
function stored(node: KubeObject, patch: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    ...structuredClone(node),
    metadata: { ...node.metadata, uid: 'tenant-node-uid', resourceVersion: '3', ...patch },
  };
}

function withHost(change: (node: KubeObject) => void): KubeObject {
  const node = structuredClone(hostNode);
  change(node);
  return node;
}

const statusOf = (node: KubeObject) => node.status as Record<string, unknown>;

describe('tenantNode', () => {
  it('copies the name, the selected labels, capacity, allocatable and the Ready condition, and marks the Node', () => {
    expect(tenantNode(hostNode, 'dev')).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'node-a',
        labels: {
          'kubernetes.io/hostname': 'node-a',
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'topology.kubernetes.io/zone': 'eu-1a',
          'node.kubernetes.io/instance-type': 'm5.large',
          ...MARKS,
          'tenantplane.io/tenant': 'dev',
        },
      },
      spec: {},
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        allocatable: { cpu: '3900m', memory: '15Gi', pods: '110' },
        conditions: [READY],
      },
    });
  });

  it.each([
    ['no conditions', (n: KubeObject) => delete statusOf(n).conditions, 'Unknown'],
    [
      'a NotReady node',
      (n: KubeObject) => (statusOf(n).conditions = [{ ...READY, status: 'False' }]),
      'False',
    ],
    ['no status at all', (n: KubeObject) => delete n.status, 'Unknown'],
  ])('mirrors the Ready condition of %s', (_name, change, status) => {
    const node = tenantNode(withHost(change), 'dev');
    expect((statusOf(node).conditions as Array<{ status: string }>)[0]?.status).toBe(status);
  });

  it('is the engine’s by its marks, whichever tenant made it', () => {
    expect(isOurNode(tenantNode(hostNode, 'dev'))).toBe(true);
    expect(isOurNode(tenantNode(hostNode, 'prod'))).toBe(true);
    expect(isOurNode(hostNode)).toBe(false);
    const { 'tenantplane.io/from-host': _f, ...labels } = MARKS;
    expect(isOurNode({ ...hostNode, metadata: { name: 'x', labels } })).toBe(false);
  });
});

describe('planNode', () => {
  const desired = tenantNode(hostNode, 'dev');
  const ours = stored(desired);

  const cases: Array<[string, KubeObject | undefined, KubeObject, unknown]> = [
    ['a missing Node is created', undefined, desired, { action: 'Create', body: desired }],
    ['a Node the engine did not make is foreign', stored(hostNode), desired, { action: 'Foreign' }],
    ['an equal Node is in sync', ours, desired, { action: 'InSync' }],
    [
      'a newer heartbeat alone is in sync',
      ours,
      tenantNode(
        withHost((n) => {
          statusOf(n).conditions = [{ ...READY, lastHeartbeatTime: '2025-01-01T01:00:00Z' }];
        }),
        'dev',
      ),
      { action: 'InSync' },
    ],
    [
      'another TenantCluster’s Node is in sync (the tenant label is not compared)',
      stored(tenantNode(hostNode, 'prod')),
      desired,
      { action: 'InSync' },
    ],
    [
      'labels of others on the tenant Node are kept',
      stored(desired, { labels: { ...desired.metadata.labels, mine: 'yes' } }),
      desired,
      { action: 'InSync' },
    ],
  ];
  it.each(cases)('%s', (_name, observed, want, plan) => {
    expect(planNode(want, observed)).toEqual(plan);
  });

  it('a Ready change patches the status only, other conditions kept', () => {
    const observed = stored(desired);
    statusOf(observed).conditions = [{ type: 'Custom', status: 'True' }, READY];
    const notReady = { ...READY, status: 'False', reason: 'KubeletNotReady' };
    const want = tenantNode(
      withHost((n) => (statusOf(n).conditions = [notReady])),
      'dev',
    );
    expect(planNode(want, observed)).toEqual({
      action: 'Update',
      changed: ['Ready'],
      status: { conditions: [{ type: 'Custom', status: 'True' }, notReady] },
    });
  });

  it('a resource the host no longer has is removed (null in the merge patch)', () => {
    const want = tenantNode(
      withHost((n) => {
        statusOf(n).capacity = { cpu: '8', memory: '16Gi' };
      }),
      'dev',
    );
    expect(nodeStatusPatch(want, ours)).toEqual({
      capacity: { cpu: '8', memory: '16Gi', pods: null },
    });
  });

  it('a changed or removed selected label updates the Node, keeping labels of others', () => {
    const observed = stored(desired, { labels: { ...desired.metadata.labels, mine: 'yes' } });
    const want = tenantNode(
      withHost((n) => {
        const labels = n.metadata.labels as Record<string, string>;
        labels['topology.kubernetes.io/zone'] = 'eu-1b';
        delete labels['node.kubernetes.io/instance-type'];
      }),
      'dev',
    );
    const plan = planNode(want, observed);
    expect(plan).toMatchObject({ action: 'Update', changed: ['labels'] });
    if (plan.action !== 'Update') throw new Error('no update');
    expect(plan.status).toBeUndefined();
    expect(plan.update?.metadata).toMatchObject({ resourceVersion: '3', uid: 'tenant-node-uid' });
    const labels = plan.update?.metadata.labels ?? {};
    expect(labels['topology.kubernetes.io/zone']).toBe('eu-1b');
    expect(labels['node.kubernetes.io/instance-type']).toBeUndefined();
    expect(labels.mine).toBe('yes');
    expect(labels['tenantplane.io/tenant']).toBe('dev');
  });
});

describe('bindings', () => {
  const pod = (nodeName?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'shop', name: 'web', uid: 'pod-uid' },
    spec: nodeName === undefined ? {} : { nodeName },
  });

  it.each([
    ['an unscheduled host Pod', undefined, undefined, undefined],
    ['an unbound tenant Pod', 'node-a', undefined, { bind: 'node-a' }],
    ['a tenant Pod already showing its node', 'node-a', 'node-a', undefined],
    [
      'a tenant Pod bound elsewhere',
      'node-a',
      'node-b',
      { elsewhere: { tenant: 'node-b', host: 'node-a' } },
    ],
  ])('%s', (_name, hostNodeName, tenantNodeName, need) => {
    expect(bindingNeed(pod(hostNodeName), pod(tenantNodeName))).toEqual(need);
  });

  it('the Binding names the tenant Pod with its uid, targets the Node and records the host copy', () => {
    const hostPod = { ...pod('node-a'), metadata: { name: 'web-x-shop-x-dev', uid: 'host-uid' } };
    expect(podBinding(pod(), 'node-a', hostPod)).toEqual({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: {
        name: 'web',
        namespace: 'shop',
        uid: 'pod-uid',
        annotations: { 'tenantplane.io/bound-host-pod': 'host-uid' },
      },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    });
  });

  it('the nodes of host Pods: each once, sorted, unscheduled ones left out', () => {
    expect(nodesOf([pod('node-b'), pod(), pod('node-a'), pod('node-b')])).toEqual([
      'node-a',
      'node-b',
    ]);
  });
});

describe('the kubelet gateway on tenant Nodes', () => {
  const gateway = { address: '10.0.0.9', port: 10443 };
  const GATEWAY_STATUS = {
    addresses: [{ type: 'InternalIP', address: '10.0.0.9' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10443 } },
    declaredFeatures: ['ExtendWebSocketsToKubelet'],
  };

  it('a Node names the gateway as its kubelet, never the host node’s address', () => {
    expect(tenantNode(hostNode, 'dev', gateway).status).toMatchObject(GATEWAY_STATUS);
    expect(statusOf(tenantNode(hostNode, 'dev')).addresses).toBeUndefined();
  });

  it('a DNS name is listed as Hostname and InternalDNS', () => {
    const status = statusOf(tenantNode(hostNode, 'dev', { address: 'gw.example', port: 1 }));
    expect(status.addresses).toEqual([
      { type: 'Hostname', address: 'gw.example' },
      { type: 'InternalDNS', address: 'gw.example' },
    ]);
  });

  it('a gateway set or changed patches the status', () => {
    const observed = stored(tenantNode(hostNode, 'dev'));
    // The apiserver shows an unset endpoint as port 0.
    statusOf(observed).daemonEndpoints = { kubeletEndpoint: { Port: 0 } };
    const plan = planNode(tenantNode(hostNode, 'dev', gateway), observed);
    expect(plan).toEqual({
      action: 'Update',
      changed: ['kubelet gateway'],
      status: GATEWAY_STATUS,
    });
    const moved = tenantNode(hostNode, 'dev', { ...gateway, port: 1 });
    expect(nodeStatusPatch(moved, stored(tenantNode(hostNode, 'dev', gateway)))).toEqual({
      ...GATEWAY_STATUS,
      daemonEndpoints: { kubeletEndpoint: { Port: 1 } },
    });
  });

  it('a gateway removed from the policy is removed from the Node', () => {
    const observed = stored(tenantNode(hostNode, 'dev', gateway));
    expect(nodeStatusPatch(tenantNode(hostNode, 'dev'), observed)).toEqual({
      addresses: null,
      daemonEndpoints: null,
      declaredFeatures: null,
    });
  });

  it('no gateway and port 0 is in sync: a converged Node is not written every pass', () => {
    const observed = stored(tenantNode(hostNode, 'dev'));
    statusOf(observed).daemonEndpoints = { kubeletEndpoint: { Port: 0 } };
    expect(planNode(tenantNode(hostNode, 'dev'), observed)).toEqual({ action: 'InSync' });
    const same = stored(tenantNode(hostNode, 'dev', gateway));
    expect(planNode(tenantNode(hostNode, 'dev', gateway), same)).toEqual({ action: 'InSync' });
  });
});
