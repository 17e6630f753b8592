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
import type { Decision, KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  LABEL,
  pass,
  RUN,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const NODE: KindRef = { apiVersion: 'v1', kind: 'Node' };
const REPLICA_SET: KindRef = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
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
    // The test's node is dedicated by its taint: the policy hands its toleration to this tenant.
    const t = await createTenant(apis(), 'wl-nodes', {
      toHost: [POD],
      workloads: { scheduling: { tolerations: [{ ...TAINT, operator: 'Equal' }] } },
    });
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

    // A graceful delete: the bound tenant Pod waits for a kubelet to confirm its end, which the
    // engine does once the host copy, deleted with the same grace period, is gone.
    await tenantKubectl(['delete', 'pod', 'web', '-n', ns, '--grace-period=15', '--wait=false']);
    const terminating = await tenantApi.get(POD, ns, 'web');
    expect(terminating?.metadata.deletionGracePeriodSeconds).toBe(15);
    const decisions: Decision[] = [];
    await waitFor(
      'passes that end the tenant Pod and remove the tenant Node',
      async () => {
        const run = await pass(t);
        expect(run.result.errors).toEqual([]);
        decisions.push(...run.result.decisions);
        const left = {
          tenantPod: Boolean(await tenantApi.get(POD, ns, 'web')),
          hostPod: Boolean(await hostApi.get(POD, t.hostNamespace, h)),
          tenantNode: Boolean(await tenantApi.get(NODE, undefined, NODE_NAME)),
        };
        if (Object.values(left).some(Boolean)) {
          throw new Error(`still there: ${JSON.stringify(left)} after a ${run.result.path} pass`);
        }
        return run;
      },
      60_000,
    );
    expect(decisions.filter((d) => d.kind === 'Pod').map((d) => [d.action, d.reason])).toEqual([
      [
        'Delete',
        `tenant Pod ${ns}/web is being deleted in the tenant with a grace period of 15 s; its host copy gets the same`,
      ],
      [
        'Delete',
        'the tenant Pod was deleted (grace period 15 s) and its host copy is gone: its deletion is finished in the tenant, as its kubelet would confirm it',
      ],
    ]);
    expect(decisions).toContainEqual(
      expect.objectContaining({
        action: 'Delete',
        kind: 'Node',
        hostRef: { namespace: '', name: NODE_NAME },
      }),
    );
  });
  it('a host Pod the host deletes ends its tenant Pod as on a lost node: the tenant ReplicaSet replaces it, never the same identity on the host', async () => {
    const { hostApi, tenantApi } = apis();
    const t = await createTenant(apis(), 'wl-lost', {
      toHost: [POD],
      workloads: { scheduling: { tolerations: [{ ...TAINT, operator: 'Equal' }] } },
    });
    const ns = t.vns.a;
    const podSpec = {
      automountServiceAccountToken: false,
      nodeSelector: { 'kubernetes.io/hostname': NODE_NAME },
      tolerations: [{ ...TAINT, operator: 'Equal' }],
      containers: [{ name: 'web', image: 'nginx:1' }],
    };
    const labels = { app: 'lost', [LABEL]: t.name };
    await tenantApi.create(
      tenantObject(t, REPLICA_SET, ns, 'lost', {
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: podSpec },
        },
      }),
    );
    const tenantPods = async () =>
      (await tenantApi.list(POD, { namespace: ns, labelSelector: 'app=lost' })).items.filter(
        (p) => !p.metadata.deletionTimestamp,
      );
    const [first] = await waitFor('the ReplicaSet’s Pod in the tenant', async () => {
      const pods = await tenantPods();
      return pods.length === 1 ? pods : undefined;
    });
    const firstName = first?.metadata.name as string;
    const h = hostName(firstName, ns, t.name);
    const running = async (name: string) =>
      waitFor(
        `host Pod ${name} Running`,
        async () => {
          const pod = await hostApi.get(POD, t.hostNamespace, name);
          return (pod?.status as { phase?: string } | undefined)?.phase === 'Running'
            ? pod
            : undefined;
        },
        60_000,
      );
    await waitFor('a pass that creates the host Pod', async () => {
      await pass(t);
      return hostApi.get(POD, t.hostNamespace, h);
    });
    const hostPod = await running(h);
    await waitFor('a pass that binds the tenant Pod', async () => {
      await pass(t, { full: true });
      return nodeNameOf(await tenantApi.get(POD, ns, firstName)) === NODE_NAME ? true : undefined;
    });

    // The host removes the copy (an eviction, a drain, an operator): gone at once.
    await hostApi.delete(
      POD,
      t.hostNamespace,
      h,
      { uid: hostPod.metadata.uid as string },
      { gracePeriodSeconds: 0 },
    );
    await waitFor('the host Pod gone', async () =>
      (await hostApi.get(POD, t.hostNamespace, h)) ? undefined : true,
    );
    const lost = await pass(t, { full: true });
    expect(lost.result.errors).toEqual([]);
    expect(
      lost.result.decisions
        .filter((d) => d.kind === 'Pod' && d.tenantRef.name === firstName)
        .map((d) => d.action),
    ).toEqual(['Skip', 'Delete']);
    expect(await hostApi.get(POD, t.hostNamespace, h)).toBeUndefined();
    expect(await tenantApi.get(POD, ns, firstName)).toBeUndefined();

    // The tenant's ReplicaSet makes a new Pod, which gets a host copy of its own.
    const [second] = await waitFor('the replacement Pod in the tenant', async () => {
      const pods = await tenantPods();
      return pods.length === 1 && pods[0]?.metadata.name !== firstName ? pods : undefined;
    });
    const h2 = hostName(second?.metadata.name as string, ns, t.name);
    await waitFor('a pass that creates the replacement’s host Pod', async () => {
      await pass(t);
      return hostApi.get(POD, t.hostNamespace, h2);
    });
    await running(h2);
    expect(await hostApi.get(POD, t.hostNamespace, h)).toBeUndefined();
    await tenantApi.delete(REPLICA_SET, ns, 'lost', {
      uid: ((await tenantApi.get(REPLICA_SET, ns, 'lost')) as KubeObject).metadata.uid as string,
    });
  });
});
