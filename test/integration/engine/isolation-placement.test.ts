/**
 * Issue 35, defect 4, on the real clusters: a host kwok node dedicated to another customer (tainted
 * `dedicated=other:NoSchedule`, labelled `customer=acme-corp`) runs that customer's Pod, whose
 * TenantCluster's policy puts it there. An attacker TenantCluster sharing the host namespace asks
 * for the node with a keyed toleration and the customer's label, for the control plane with its
 * taint, and for cordoned nodes with `node.kubernetes.io/unschedulable`: each is a Skip naming the
 * field, and no host Pod is made. The attacker's ordinary Deployment, whose Pods carry the
 * `not-ready`/`unreachable` tolerations the tenant apiserver adds, still runs. A uid/resourceVersion
 * snapshot of the host namespace shows only that Pod new and nothing of the victim's changed.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { Decision, KindRef, KubeObject } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  createTenant,
  diffSnapshots,
  kwokNode,
  LABEL,
  pass,
  RUN,
  removeNode,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
const NODE_NAME = `pl-acme-${RUN}`;
const CUSTOMER = { customer: `acme-corp-${RUN}` };
const TAINT = { key: 'dedicated', value: `other-${RUN}`, effect: 'NoSchedule' };

type Spec = Record<string, unknown>;
const podSpec = (extra: Spec = {}): Spec => ({
  automountServiceAccountToken: false,
  containers: [{ name: 'web', image: 'nginx:1' }],
  ...extra,
});
const nodeOf = (pod: KubeObject | undefined) =>
  (pod?.spec as { nodeName?: string } | undefined)?.nodeName;
const phaseOf = (pod: KubeObject | undefined) =>
  (pod?.status as { phase?: string } | undefined)?.phase;

describe('tolerations and node selection the operator did not hand out', () => {
  afterAll(() => removeNode(apis().hostApi, NODE_NAME));

  it('a keyed toleration with another customer’s label, the control plane’s taint and a cordon’s are Skips naming the field, with no host Pod; an ordinary Deployment still runs', async () => {
    const { hostApi } = apis();
    // The node the operator dedicated to the victim customer (kwok plays nodes annotated so).
    await hostApi.create(kwokNode(NODE_NAME, '10.245.9.0/24', TAINT, CUSTOMER));
    // The victim's policy puts its Pods there.
    const victim = await createTenant(apis(), 'pl-victim', {
      toHost: [POD],
      workloads: { nodeSelector: CUSTOMER, tolerations: [{ ...TAINT, operator: 'Equal' }] },
    });
    const attacker = await createTenant(apis(), 'pl-attacker', {
      toHost: [POD],
      hostNamespace: victim.hostNamespace,
    });
    const hostNs = victim.hostNamespace;
    await victim.tenantApi.create(
      tenantObject(victim, POD, victim.vns.a, 'own', { spec: podSpec() }),
    );
    expect((await pass(victim)).result.errors).toEqual([]);
    const victimCopy = hostName('own', victim.vns.a, victim.name);
    await waitFor(
      'the victim’s Pod Running on its dedicated node',
      async () => {
        const pod = await hostApi.get(POD, hostNs, victimCopy);
        return phaseOf(pod) === 'Running' && nodeOf(pod) === NODE_NAME ? pod : undefined;
      },
      60_000,
    );
    expect((await pass(victim, { full: true })).result.errors).toEqual([]);

    const before = await snapshot(hostNs);
    const ans = attacker.vns.a;
    const hostile: Array<[string, Spec, string]> = [
      [
        'grab',
        { tolerations: [{ key: 'dedicated', operator: 'Exists' }], nodeSelector: CUSTOMER },
        'the Pod tolerates the taint "dedicated" (spec.tolerations[0]: operator Exists)',
      ],
      [
        'control-plane',
        {
          tolerations: [
            {
              key: 'node-role.kubernetes.io/control-plane',
              operator: 'Exists',
              effect: 'NoSchedule',
            },
          ],
        },
        'the Pod tolerates the taint "node-role.kubernetes.io/control-plane" (spec.tolerations[0]',
      ],
      [
        'cordoned',
        {
          tolerations: [
            { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
          ],
        },
        'the Pod tolerates the taint "node.kubernetes.io/unschedulable" (spec.tolerations[0]',
      ],
      [
        'select',
        { nodeSelector: CUSTOMER },
        `the Pod selects nodes by label "customer" = "${CUSTOMER.customer}" (spec.nodeSelector.customer)`,
      ],
      [
        'prefer',
        {
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  preference: {
                    matchExpressions: [
                      { key: 'customer', operator: 'In', values: [CUSTOMER.customer] },
                    ],
                  },
                },
              ],
            },
          },
        },
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0]',
      ],
    ];
    for (const [name, extra] of hostile) {
      await attacker.tenantApi.create(
        tenantObject(attacker, POD, ans, name, { spec: podSpec(extra) }),
      );
    }
    // An ordinary Deployment: its Pod carries the tolerations the tenant apiserver adds.
    const labels = { app: 'plain', [LABEL]: attacker.name };
    await attacker.tenantApi.create(
      tenantObject(attacker, DEPLOYMENT, ans, 'plain', {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'plain' } },
          template: { metadata: { labels }, spec: podSpec() },
        },
      }),
    );
    const plain = await waitFor('the Deployment’s tenant Pod', async () => {
      const pods = (
        await attacker.tenantApi.list(POD, { namespace: ans, labelSelector: 'app=plain' })
      ).items;
      return pods.length === 1 ? pods[0] : undefined;
    });
    const defaults = (plain.spec as { tolerations?: Spec[] }).tolerations ?? [];
    expect(defaults.map((t) => t.key).sort()).toEqual([
      'node.kubernetes.io/not-ready',
      'node.kubernetes.io/unreachable',
    ]);

    const run = await pass(attacker);
    expect(run.result.errors).toEqual([]);
    const skips = run.result.decisions.filter((d: Decision) => d.action === 'Skip');
    for (const [name, , reason] of hostile) {
      const skip = skips.find((d) => d.tenantRef?.name === name);
      expect({ name, reason: skip?.reason }).toEqual({
        name,
        reason: expect.stringContaining(reason),
      });
      expect(skip?.reason).toContain('the policy does not allow');
      expect(await hostApi.get(POD, hostNs, hostName(name, ans, attacker.name))).toBeUndefined();
    }
    const plainCopy = hostName(plain.metadata.name, ans, attacker.name);
    const running = await waitFor(
      'the Deployment’s host Pod Running',
      async () => {
        const pod = await hostApi.get(POD, hostNs, plainCopy);
        return phaseOf(pod) === 'Running' ? pod : undefined;
      },
      60_000,
    );
    expect(nodeOf(running)).not.toBe(NODE_NAME);

    // Only the Deployment's Pod is new; the victim's Pod and everything else is as it was.
    expect(diffSnapshots(before, await snapshot(hostNs))).toEqual({
      created: [`Pod/${plainCopy}`],
      changed: [],
      deleted: [],
    });
    const onNode = (await hostApi.list(POD, { fieldSelector: `spec.nodeName=${NODE_NAME}` })).items;
    expect(onNode.map((p) => p.metadata.name)).toEqual([victimCopy]);
  });
});
