/**
 * Pod updates touch only what a running Pod lets change, built from the host's copy (what it
 * cannot take: pod-immutable.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { writeTraits } from '../../../../../../lib/engine/kinds/registry.js';
import { planUpdate } from '../../../../../../lib/engine/object/write-record.js';
import { parseWorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { hostOf as hostUnder, tenantObject } from '../../support.js';

/** How Pod copies are written (the Pod's module). */
const POD_WRITES = writeTraits({ apiVersion: 'v1', kind: 'Pod' });

type Spec = Record<string, unknown>;
/** The tenant tolerations these Pods carry, allowed by the policy (`placement.ts`). */
const ALLOWING = parseWorkloadPolicy(
  {
    scheduling: {
      tolerations: [
        { key: 'team', operator: 'Exists' },
        { key: 'gpu', operator: 'Exists' },
      ],
    },
  },
  [],
);
const hostOf = (source: KubeObject) => hostUnder(source, ALLOWING);
const pod = (spec: Spec, labels?: Record<string, string>) =>
  tenantObject('v1', 'Pod', { spec }, labels ? { labels } : {});
const HOST_TOLERATION = {
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
};
const base: Spec = {
  containers: [{ name: 'web', image: 'nginx:1', command: ['nginx'] }],
  tolerations: [{ key: 'team', operator: 'Equal', value: 'shop' }],
  schedulingGates: [{ name: 'a' }, { name: 'b' }],
};

/** The host's copy of `desired` as the host keeps it: defaults, a node, a host toleration, status. */
function asHostStored(desired: KubeObject, extra: Spec = {}): KubeObject {
  const spec = desired.spec as Spec;
  return {
    ...structuredClone(desired),
    metadata: { ...structuredClone(desired.metadata), uid: 'host-uid', resourceVersion: '7' },
    spec: {
      ...structuredClone(spec),
      nodeName: 'kwok-node-0',
      dnsPolicy: 'ClusterFirst',
      tolerations: [...((spec.tolerations as unknown[]) ?? []), HOST_TOLERATION],
      ...extra,
    },
    status: { phase: 'Running', podIP: '10.0.0.5' },
  };
}

describe('Pod updates', () => {
  const cases: Array<{
    name: string;
    tenantState: Spec;
    hostState: Spec;
    expectedHostState?: Spec;
    expectedDecisions: string[];
  }> = [
    {
      name: 'nothing changed: no write, despite host defaults, node and an added toleration',
      tenantState: base,
      hostState: base,
      expectedDecisions: [],
    },
    {
      name: 'an image change is written; the host toleration, node and other fields stay',
      tenantState: { ...base, containers: [{ name: 'web', image: 'nginx:2', command: ['nginx'] }] },
      hostState: base,
      expectedHostState: {
        containers: [{ name: 'web', image: 'nginx:2', command: ['nginx'] }],
        tolerations: [base.tolerations, HOST_TOLERATION].flat(),
        nodeName: 'kwok-node-0',
      },
      expectedDecisions: ['spec.containers[web].image'],
    },
    {
      name: 'an added toleration joins the host’s; none is removed',
      tenantState: { ...base, tolerations: [{ key: 'gpu', operator: 'Exists' }] },
      hostState: base,
      expectedHostState: {
        tolerations: [base.tolerations, HOST_TOLERATION, { key: 'gpu', operator: 'Exists' }].flat(),
      },
      expectedDecisions: ['spec.tolerations'],
    },
    {
      name: 'a removed scheduling gate is removed; one added after creation is not',
      tenantState: { ...base, schedulingGates: [{ name: 'b' }, { name: 'c' }] },
      hostState: base,
      expectedHostState: { schedulingGates: [{ name: 'b' }] },
      expectedDecisions: ['spec.schedulingGates'],
    },
    {
      name: 'activeDeadlineSeconds is set',
      tenantState: { ...base, activeDeadlineSeconds: 60 },
      hostState: base,
      expectedHostState: { activeDeadlineSeconds: 60 },
      expectedDecisions: ['spec.activeDeadlineSeconds'],
    },
  ];
  it.each(cases)('$name', ({ tenantState, hostState, expectedHostState, expectedDecisions }) => {
    const observed = asHostStored(hostOf(pod(hostState)));
    const desired = hostOf(pod(tenantState));
    const plan = planUpdate(desired, observed, POD_WRITES);
    if (expectedDecisions.length === 0) {
      expect(plan.action).toBe('InSync');
      return;
    }
    if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
    expect(plan.changed).toEqual(expect.arrayContaining(expectedDecisions));
    expect(plan.body.metadata).toMatchObject({ uid: 'host-uid', resourceVersion: '7' });
    expect(plan.body.status).toBeUndefined();
    expect(plan.body.spec).toMatchObject(expectedHostState ?? {});
    // The update is the host's Pod but for what may change: dnsPolicy and nodeName stay.
    expect(plan.body.spec).toMatchObject({ dnsPolicy: 'ClusterFirst', nodeName: 'kwok-node-0' });
    // What was written is in sync the next time.
    expect(planUpdate(desired, { ...plan.body, status: observed.status }, POD_WRITES).action).toBe(
      'InSync',
    );
  });

  const HELM = { 'app.kubernetes.io/managed-by': 'Helm' };
  const CARRIED = 'app.kubernetes.io.carried.tenantplane.io/managed-by';
  const carried: Array<{
    name: string;
    hostLabels: Record<string, string>;
    tenantLabels: Record<string, string>;
    expectedChanged: string[];
    expectedCarried?: string;
  }> = [
    {
      name: 'a carried label in sync: no write',
      hostLabels: { app: 'web', ...HELM },
      tenantLabels: { app: 'web', ...HELM },
      expectedChanged: [],
      expectedCarried: 'Helm',
    },
    {
      name: 'an image change keeps the carried label',
      hostLabels: { app: 'web', ...HELM },
      tenantLabels: { app: 'web', ...HELM },
      expectedChanged: ['spec.containers[web].image'],
      expectedCarried: 'Helm',
    },
    {
      name: 'a changed carried value is updated',
      hostLabels: { ...HELM },
      tenantLabels: { 'app.kubernetes.io/managed-by': 'Kustomize' },
      expectedChanged: ['labels'],
      expectedCarried: 'Kustomize',
    },
    {
      name: 'a reserved label the tenant removed is removed',
      hostLabels: { app: 'web', ...HELM },
      tenantLabels: { app: 'web' },
      expectedChanged: ['labels'],
    },
    {
      name: 'a reserved label the tenant added is carried',
      hostLabels: { app: 'web' },
      tenantLabels: { app: 'web', ...HELM },
      expectedChanged: ['labels'],
      expectedCarried: 'Helm',
    },
  ];
  it.each(carried)(
    'carried labels: $name',
    ({ hostLabels, tenantLabels, expectedChanged, expectedCarried }) => {
      const observed = asHostStored(hostOf(pod(base, hostLabels)));
      const image = expectedChanged.includes('spec.containers[web].image') ? 'nginx:2' : 'nginx:1';
      const spec = { ...base, containers: [{ name: 'web', image, command: ['nginx'] }] };
      const desired = hostOf(pod(spec, tenantLabels));
      const plan = planUpdate(desired, observed, POD_WRITES);
      if (expectedChanged.length === 0) {
        expect(plan.action).toBe('InSync');
        return;
      }
      if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
      expect(plan.changed).toEqual(expect.arrayContaining(expectedChanged));
      expect(plan.body.metadata.labels?.[CARRIED]).toBe(expectedCarried);
      expect(plan.body.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('tenantplane');
      // What was written is in sync the next time.
      expect(
        planUpdate(desired, { ...plan.body, status: observed.status }, POD_WRITES).action,
      ).toBe('InSync');
    },
  );

  it('a label change is an update of the labels only, keeping host-added labels', () => {
    const observed = asHostStored(hostOf(pod(base, { app: 'web' })));
    observed.metadata.labels = { ...observed.metadata.labels, 'host.example/zone': 'a' };
    const plan = planUpdate(hostOf(pod(base, { app: 'web', tier: 'front' })), observed, POD_WRITES);
    if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
    expect(plan.changed).toEqual(['labels', 'annotations']);
    expect(plan.body.metadata.labels).toMatchObject({
      app: 'web',
      tier: 'front',
      'host.example/zone': 'a',
    });
    expect(plan.body.spec).toEqual(observed.spec);
  });
});
