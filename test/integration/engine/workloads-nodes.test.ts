/**
 * Nodes back on the real clusters: a tenant Pod whose host copy the host scheduler placed on a
 * kwok node is bound (`pods/binding`) to a tenant Node of that node's name, which the tenant gets
 * with the host node's labels, resources and Ready condition; `kubectl get pods -o wide` in the
 * tenant shows the node; later passes write nothing in the tenant; once the Pod is deleted a
 * later pass removes the Node.
 *
 * The Pod runs on a kwok node of this test's own (tainted, selected by name), so no other test's
 * tenant Pod is bound to the Node and keeps it.
 */
import { execFile } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, KubeObject } from '../../../lib/ports/index.js';
import { clusters, createTenant, pass, RUN, tenantObject, useApis, waitFor } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const NODE_NAME = `wl-nodes-${RUN}`;
const TAINT = { key: 'tenantplane-test/dedicated', value: NODE_NAME, effect: 'NoSchedule' };

/** Runs the built kubectl against the tenant cluster. */
function tenantKubectl(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      clusters.kubectl,
      ['--kubeconfig', clusters.tenantKubeconfigPath, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || error.message}`))
          : resolve(stdout),
    );
  });
}

interface NodeCondition {
  type: string;
  status: string;
}
const readyOf = (node: KubeObject | undefined) =>
  ((node?.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []).find(
    (c) => c.type === 'Ready',
  )?.status;
const nodeNameOf = (pod: KubeObject | undefined) =>
  (pod?.spec as { nodeName?: string } | undefined)?.nodeName;

describe('nodes back', () => {
  afterAll(async () => {
    const node = await apis().hostApi.get(NODE, undefined, NODE_NAME);
    if (node) {
      await apis().hostApi.delete(NODE, undefined, NODE_NAME, { uid: node.metadata.uid as string });
    }
  });

  it('binds a tenant Pod to a tenant Node of its host node, writes nothing once steady, and removes the Node once no Pod needs it', async () => {
    const { hostApi, tenantApi } = apis();
    // A kwok node of this test's own (kwok plays the nodes annotated kwok.x-k8s.io/node=fake).
    await hostApi.create({
      ...NODE,
      metadata: {
        name: NODE_NAME,
        annotations: { 'kwok.x-k8s.io/node': 'fake' },
        labels: {
          'kubernetes.io/hostname': NODE_NAME,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'topology.kubernetes.io/zone': 'local-nodes',
          type: 'kwok',
        },
      },
      spec: { podCIDR: '10.245.7.0/24', podCIDRs: ['10.245.7.0/24'], taints: [TAINT] },
    });
    const t = await createTenant(apis(), 'wl-nodes', { toHost: [POD] });
    const ns = t.vns.a;
    const spec = {
      automountServiceAccountToken: false,
      nodeSelector: { 'kubernetes.io/hostname': NODE_NAME },
      tolerations: [{ ...TAINT, operator: 'Equal' }],
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    await tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));

    const created = await pass(t);
    expect(created.result.errors).toEqual([]);
    const h = hostName('web', ns, t.name);
    await waitFor(
      'the host Pod Running on the test’s node',
      async () => {
        const pod = await hostApi.get(POD, t.hostNamespace, h);
        const phase = (pod?.status as { phase?: string } | undefined)?.phase;
        return phase === 'Running' && nodeNameOf(pod) === NODE_NAME ? pod : undefined;
      },
      60_000,
    );

    // Full: the first pass may have seen the host Pod unscheduled.
    const bound = await pass(t, { full: true });
    expect(bound.result.errors).toEqual([]);
    // The topology labels the tenant binding copies to the tenant Pod are not synced: no host write.
    expect(bound.result.requests.host.writes).toBe(0);
    expect(nodeNameOf(await tenantApi.get(POD, ns, 'web'))).toBe(NODE_NAME);
    const node = await tenantApi.get(NODE, undefined, NODE_NAME);
    expect(node?.metadata.labels).toMatchObject({
      'kubernetes.io/hostname': NODE_NAME,
      'kubernetes.io/os': 'linux',
      'topology.kubernetes.io/zone': 'local-nodes',
      'app.kubernetes.io/managed-by': 'tenantplane',
      'tenantplane.io/from-host': 'true',
    });
    expect(node?.metadata.labels?.type).toBeUndefined();
    expect(readyOf(node)).toBe('True');
    expect(node?.status).toMatchObject({ capacity: expect.any(Object) });
    // The binding copies the Node's topology labels to the tenant Pod (the apiserver's
    // PodTopologyLabels admission), like the host's binding did to the host Pod.
    expect((await tenantApi.get(POD, ns, 'web'))?.metadata.labels).toMatchObject({
      'topology.kubernetes.io/zone': 'local-nodes',
    });
    expect([...created.result.decisions, ...bound.result.decisions]).toContainEqual(
      expect.objectContaining({
        action: 'Create',
        kind: 'Node',
        hostRef: { namespace: '', name: NODE_NAME },
      }),
    );
    // What an operator sees in the tenant: the node of the Pod.
    const wide = await tenantKubectl(['get', 'pod', 'web', '-n', ns, '-o', 'wide', '--no-headers']);
    expect(wide).toContain(NODE_NAME);

    // The second pass may resume (it sees the binding and status writes as changes), the third is full.
    for (const options of [{}, { full: true }]) {
      const steady = await pass(t, options);
      expect(steady.result.errors).toEqual([]);
      expect(steady.result.decisions.filter((d) => d.kind === 'Node' || d.kind === 'Pod')).toEqual(
        [],
      );
      expect(steady.result.requests.tenant.writes).toBe(0);
      expect(steady.result.requests.host.writes).toBe(0);
    }

    // A bound tenant Pod would wait for a kubelet to confirm a graceful delete: forced here.
    await tenantKubectl(['delete', 'pod', 'web', '-n', ns, '--grace-period=0', '--force']);
    const removal = await waitFor(
      'a pass that removes the tenant Node',
      async () => {
        const run = await pass(t, { full: true });
        expect(run.result.errors).toEqual([]);
        return (await tenantApi.get(NODE, undefined, NODE_NAME)) ? undefined : run;
      },
      60_000,
    );
    expect(removal.result.decisions).toContainEqual(
      expect.objectContaining({
        action: 'Delete',
        kind: 'Node',
        hostRef: { namespace: '', name: NODE_NAME },
      }),
    );
  });
});
