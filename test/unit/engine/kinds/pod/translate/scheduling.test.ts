/**
 * Scheduling the policy enforces on every host Pod: its node selector wins over the tenant's for
 * the same key, its tolerations are added once; on a running Pod a toleration the policy adds is
 * an update, a node selector it changes is the Skip that says a running Pod cannot change it.
 */
import { describe, expect, it } from '@jest/globals';
import { translate, writeTraits } from '../../../../../../lib/engine/kinds/registry.js';
import { createBody, planUpdate } from '../../../../../../lib/engine/object/write-record.js';
import {
  isolationOf,
  type Toleration,
  type WorkloadPolicy,
} from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

/** How Pod copies are written (the Pod's module). */
const POD_WRITES = writeTraits({ apiVersion: 'v1', kind: 'Pod' });

type Spec = Record<string, unknown>;
const pod = (spec: Spec) =>
  tenantObject('v1', 'Pod', {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
      ...spec,
    },
  });

/**
 * The host Pod of a tenant Pod under `workloads`, whose isolation also allows what these tenant
 * Pods ask for of their own (the `gpu` toleration, the `disk` label: `placement.ts` refuses them
 * otherwise); the policy's own selector and tolerations are the subject here.
 */
function hostPod(spec: Spec, workloads: WorkloadPolicy = {}): KubeObject {
  const scheduling = { tolerations: [GPU], nodeLabels: [{ key: 'disk' }] };
  const allowing = { ...workloads, isolation: { ...isolationOf(workloads), scheduling } };
  const result = translate(pod(spec), {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    workloads: allowing,
  });
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host;
}

const DEDICATED: Toleration = {
  key: 'dedicated',
  operator: 'Equal',
  value: 'tenants',
  effect: 'NoSchedule',
};
const GPU: Toleration = { key: 'gpu', operator: 'Exists' };

describe('Pod scheduling the policy enforces', () => {
  const cases: Array<{
    name: string;
    tenantSpec: Spec;
    policy?: WorkloadPolicy;
    expectedNodeSelector?: Record<string, string>;
    expectedTolerations?: readonly (Toleration | Spec)[];
  }> = [
    {
      name: 'no policy: the tenant’s node selector and tolerations as they are',
      tenantSpec: { nodeSelector: { disk: 'ssd' }, tolerations: [GPU] },
      expectedNodeSelector: { disk: 'ssd' },
      expectedTolerations: [GPU],
    },
    {
      name: 'a Pod without either gets the policy’s',
      tenantSpec: {},
      policy: { nodeSelector: { pool: 'tenants' }, tolerations: [DEDICATED] },
      expectedNodeSelector: { pool: 'tenants' },
      expectedTolerations: [DEDICATED],
    },
    {
      name: 'merged: the policy’s value wins for the same key, the tenant’s other keys stay',
      tenantSpec: { nodeSelector: { pool: 'gpu', disk: 'ssd' } },
      policy: { nodeSelector: { pool: 'tenants' } },
      expectedNodeSelector: { pool: 'tenants', disk: 'ssd' },
    },
    {
      name: 'tolerations added after the tenant’s',
      tenantSpec: { tolerations: [GPU] },
      policy: { tolerations: [DEDICATED] },
      expectedTolerations: [GPU, DEDICATED],
    },
    {
      name: 'a toleration the tenant has already (written with the defaults left out) is not repeated',
      tenantSpec: { tolerations: [{ key: 'dedicated', value: 'tenants', effect: 'NoSchedule' }] },
      policy: { tolerations: [DEDICATED, DEDICATED] },
      expectedTolerations: [{ key: 'dedicated', value: 'tenants', effect: 'NoSchedule' }],
    },
    {
      name: 'an empty policy changes nothing',
      tenantSpec: {},
      policy: { nodeSelector: {}, tolerations: [] },
    },
  ];
  it.each(cases)('$name', ({ tenantSpec, policy, expectedNodeSelector, expectedTolerations }) => {
    const spec = hostPod(tenantSpec, policy).spec as Spec;
    expect(spec.nodeSelector).toEqual(expectedNodeSelector);
    expect(spec.tolerations).toEqual(expectedTolerations);
  });

  it('is idempotent: the host Pod translated again under the same policy is the same', () => {
    const policy = { nodeSelector: { pool: 'tenants' }, tolerations: [DEDICATED] };
    const once = hostPod({ nodeSelector: { pool: 'gpu' }, tolerations: [GPU] }, policy);
    const spec = once.spec as Spec;
    const twice = hostPod(
      { nodeSelector: spec.nodeSelector, tolerations: spec.tolerations },
      policy,
    );
    expect((twice.spec as Spec).nodeSelector).toEqual(spec.nodeSelector);
    expect((twice.spec as Spec).tolerations).toEqual(spec.tolerations);
  });
});

describe('a policy change on a running Pod', () => {
  /** The host Pod written under `policy` (with its write record), as the host keeps it. */
  function running(policy: WorkloadPolicy): KubeObject {
    const created = createBody(hostPod({ tolerations: [GPU] }, policy), POD_WRITES);
    return {
      ...created,
      metadata: { ...created.metadata, uid: 'host-uid', resourceVersion: '7' },
      spec: { ...structuredClone(created.spec as Spec), nodeName: 'kwok-node-0' },
      status: { phase: 'Running' },
    };
  }
  const before: WorkloadPolicy = { nodeSelector: { pool: 'tenants' }, tolerations: [DEDICATED] };
  const cases: Array<{ name: string; after: WorkloadPolicy; expected: unknown }> = [
    { name: 'unchanged: no write', after: before, expected: { action: 'InSync' } },
    {
      name: 'a toleration added: an update that adds it, keeping the others',
      after: { ...before, tolerations: [DEDICATED, { key: 'spot', operator: 'Exists' }] },
      expected: {
        action: 'Update',
        changed: ['spec.tolerations'],
        body: { spec: { tolerations: [GPU, DEDICATED, { key: 'spot', operator: 'Exists' }] } },
      },
    },
    {
      name: 'a toleration removed: nothing (a running Pod’s tolerations can only be added)',
      after: { nodeSelector: before.nodeSelector },
      expected: { action: 'InSync' },
    },
    {
      name: 'the node selector changed: the Skip that says a running Pod cannot change it',
      after: { ...before, nodeSelector: { pool: 'big' } },
      expected: {
        action: 'Immutable',
        fields: ['spec.nodeSelector'],
        reason:
          "the Pod's spec.nodeSelector changed; a running Pod cannot change it; delete the tenant Pod to recreate it",
      },
    },
  ];
  it.each(cases)('$name', ({ after, expected }) => {
    expect(
      planUpdate(hostPod({ tolerations: [GPU] }, after), running(before), POD_WRITES),
    ).toMatchObject(expected as Record<string, unknown>);
  });
});
