/**
 * A tenant Pod change its running host copy cannot take is a Skip that says so (never an update
 * the host refuses); resources go through an in-place resize; a recreated tenant Pod replaces
 * the host Pod.
 */
import { describe, expect, it } from '@jest/globals';
import { immutablePodChanges } from '../../../../../../lib/engine/kinds/pod/translate/immutable.js';
import { writeTraits } from '../../../../../../lib/engine/kinds/registry.js';
import { planApply } from '../../../../../../lib/engine/object/apply.js';
import { createBody, planUpdate } from '../../../../../../lib/engine/object/write-record.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { hostOf, TENANT, tenantObject } from '../../support.js';

/** How Pod copies are written (the Pod's module). */
const POD_WRITES = writeTraits({ apiVersion: 'v1', kind: 'Pod' });

type Spec = Record<string, unknown>;
const pod = (spec: Spec, uid = 'uid-1') => tenantObject('v1', 'Pod', { spec }, { uid });
const SOURCE = { tenant: TENANT, kind: 'Pod', virtualNamespace: 'shop', virtualName: 'web' };
const web = (fields: Spec = {}) => ({
  name: 'web',
  image: 'nginx:1',
  command: ['nginx'],
  ...fields,
});
const base: Spec = {
  volumes: [{ name: 'data', emptyDir: {} }],
  initContainers: [{ name: 'init', image: 'busybox:1', resources: { requests: { cpu: '10m' } } }],
  containers: [web({ resources: { requests: { cpu: '100m', memory: '64Mi' } } })],
};

/** The host Pod created from `spec` (with its write record), as the host keeps it. */
function hostStored(spec: Spec, extra: Spec = {}): KubeObject {
  const created = createBody(hostOf(pod(spec)), POD_WRITES);
  return {
    ...created,
    metadata: { ...created.metadata, uid: 'host-uid', resourceVersion: '7' },
    spec: { ...structuredClone(created.spec as Spec), nodeName: 'kwok-node-0', ...extra },
    status: { phase: 'Running' },
  };
}

describe('Pod changes a running host Pod cannot take', () => {
  const cases: Array<{ name: string; tenantState: Spec; expectedFields: string[] }> = [
    {
      name: 'a changed command',
      tenantState: { ...base, containers: [web({ command: ['sh'] })] },
      expectedFields: ['spec.containers[web].command'],
    },
    {
      name: 'an added volume',
      tenantState: {
        ...base,
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'more', emptyDir: {} },
        ],
      },
      expectedFields: ['spec.volumes'],
    },
    {
      name: 'an added env var and a changed port',
      tenantState: {
        ...base,
        containers: [web({ env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 81 }] })],
      },
      expectedFields: ['spec.containers[web].env', 'spec.containers[web].ports'],
    },
    {
      name: 'another container',
      tenantState: { ...base, containers: [web(), { name: 'side', image: 'envoy:1' }] },
      expectedFields: ['spec.containers'],
    },
    {
      name: 'a plain init container’s resources (it has run already)',
      tenantState: {
        ...base,
        initContainers: [
          { name: 'init', image: 'busybox:1', resources: { requests: { cpu: '20m' } } },
        ],
      },
      expectedFields: ['spec.initContainers[init].resources'],
    },
    {
      name: 'an image and a command at once: nothing is written, not even the image',
      tenantState: { ...base, containers: [web({ image: 'nginx:2', command: ['sh'] })] },
      expectedFields: ['spec.containers[web].command'],
    },
  ];
  it.each(cases)('$name: a Skip naming it, no write', ({ tenantState, expectedFields }) => {
    const observed = hostStored(base);
    const desired = hostOf(pod(tenantState));
    expect(immutablePodChanges(desired, observed)).toEqual(expectedFields);
    const plan = planApply(desired, observed, SOURCE, {}, POD_WRITES);
    expect(plan).toEqual({
      action: 'Skip',
      reason: expect.stringContaining(`the Pod's ${expectedFields.join(', ')} changed`),
    });
    expect(plan.action === 'Skip' && plan.reason).toMatch(
      /a running Pod cannot change (it|them); delete the tenant Pod to recreate it$/,
    );
    // The same next pass: a persistent Skip, no write.
    expect(planApply(desired, observed, SOURCE, {}, POD_WRITES).action).toBe('Skip');
  });

  it('host defaults and a host webhook’s sidecar of the same desired Pod are no change', () => {
    const observed = hostStored(base, { dnsPolicy: 'ClusterFirst', schedulerName: 'default' });
    const spec = observed.spec as { containers: Spec[] };
    spec.containers = [
      { ...spec.containers[0], imagePullPolicy: 'IfNotPresent' },
      { name: 'istio-proxy', image: 'proxy:1' },
    ];
    expect(planApply(hostOf(pod(base)), observed, SOURCE, {}, POD_WRITES)).toEqual({
      action: 'InSync',
    });
  });

  it('a label change of a Pod a host webhook changed is an update, not a Skip', () => {
    const observed = hostStored(base);
    const spec = observed.spec as { containers: Spec[] };
    spec.containers = [...spec.containers, { name: 'istio-proxy', image: 'proxy:1' }];
    const relabelled = tenantObject('v1', 'Pod', { spec: base }, { labels: { tier: 'front' } });
    const plan = planApply(hostOf(relabelled), observed, SOURCE, {}, POD_WRITES);
    expect(plan).toMatchObject({ action: 'Update', changed: ['labels', 'annotations'] });
    // The sidecar stays: the update is the host's Pod with the labels changed.
    expect(plan.action === 'Update' && plan.body.spec).toEqual(observed.spec);
  });

  it('on a copy written before the immutable digest, the whole desired object tells', () => {
    const observed = hostStored(base);
    const { 'tenantplane.io/immutable-hash': _digest, ...annotations } =
      observed.metadata.annotations ?? {};
    observed.metadata.annotations = annotations;
    const spec = observed.spec as { containers: Spec[] };
    spec.containers = [...spec.containers, { name: 'istio-proxy', image: 'proxy:1' }];
    expect(planApply(hostOf(pod(base)), observed, SOURCE, {}, POD_WRITES)).toEqual({
      action: 'InSync',
    });
    const changed = hostOf(pod({ ...base, containers: [web({ command: ['sh'] })] }));
    expect(planApply(changed, observed, SOURCE, {}, POD_WRITES).action).toBe('Skip');
  });

  it('a tenant Pod recreated with another command replaces the host Pod', () => {
    const desired = hostOf(pod({ ...base, containers: [web({ command: ['sh'] })] }, 'uid-2'));
    expect(planApply(desired, hostStored(base), SOURCE, {}, POD_WRITES)).toEqual({
      action: 'Replace',
      fields: ['spec.containers[web].command'],
      recreated: true,
    });
  });
});

describe('Pod resources: an in-place resize', () => {
  it('a changed request is a resize of the observed Pod, then an update that keeps it', () => {
    const observed = hostStored(base);
    // A LimitRange of the host added a limit the tenant never set: it stays.
    const hostSpec = observed.spec as { containers: Spec[] };
    hostSpec.containers[0] = {
      ...hostSpec.containers[0],
      resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '1Gi' } },
    };
    const tenantState = {
      ...base,
      containers: [
        web({ image: 'nginx:2', resources: { requests: { cpu: '200m', memory: '64Mi' } } }),
      ],
    };
    const desired = hostOf(pod(tenantState));
    const plan = planUpdate(desired, observed, POD_WRITES);
    if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
    expect(plan.changed).toEqual(
      expect.arrayContaining(['spec.containers[web].resources', 'spec.containers[web].image']),
    );
    const resources = { requests: { cpu: '200m', memory: '64Mi' }, limits: { memory: '1Gi' } };
    // The resize changes the resources only (the image goes with the update after it).
    expect(plan.resize?.spec).toMatchObject({ containers: [{ image: 'nginx:1', resources }] });
    expect(plan.resize?.metadata.resourceVersion).toBe('7');
    expect(plan.resize?.status).toBeUndefined();
    expect(plan.body.spec).toMatchObject({ containers: [{ image: 'nginx:2', resources }] });
    // What was written is in sync the next time.
    expect(planUpdate(desired, { ...plan.body, status: observed.status }, POD_WRITES).action).toBe(
      'InSync',
    );
  });

  it('unchanged resources (host defaults beside them) make no resize', () => {
    const desired = hostOf(
      pod({ ...base, containers: [web({ image: 'nginx:2', resources: {} })] }),
    );
    const plan = planUpdate(desired, hostStored(base), POD_WRITES);
    if (plan.action !== 'Update') throw new Error(`expected an Update, got ${plan.action}`);
    expect(plan.resize).toBeUndefined();
  });
});
