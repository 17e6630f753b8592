/**
 * What a sandbox needs of every host Pod: the policy's runtime class set when the tenant names
 * none, a different one refused (never changed silently), the tenant's own scheduler and a
 * toleration of every taint refused unless the policy allows them; on a running Pod a runtime
 * class the policy names later is the Skip that says a running Pod cannot change it, with no
 * write, pass after pass.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../../lib/engine/index.js';
import {
  sandboxRefusal,
  toleratesAll,
} from '../../../../../../lib/engine/kinds/pod/translate/sandbox.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import {
  parseWorkloadPolicy,
  type WorkloadPolicy,
} from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { clusters, HOST_NS, hn, tenantCluster } from '../../../support.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

type Spec = Record<string, unknown>;
const POD = { apiVersion: 'v1', kind: 'Pod' };

function policy(spec: Spec): WorkloadPolicy {
  const problems: string[] = [];
  const parsed = parseWorkloadPolicy(spec, problems);
  expect(problems).toEqual([]);
  return parsed;
}

const pod = (spec: Spec) =>
  tenantObject('v1', 'Pod', {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
      ...spec,
    },
  });

function translated(spec: Spec, workloads?: WorkloadPolicy) {
  return translate(pod(spec), { tenant: TENANT, hostNamespace: HOST_NAMESPACE, workloads });
}

const GVISOR = { runtimeClassName: 'gvisor' };
const ALL = { operator: 'Exists' };

describe('the runtime class the policy forces', () => {
  const cases: Array<{
    name: string;
    tenant: Spec;
    workloads?: WorkloadPolicy;
    expected: unknown;
  }> = [
    {
      name: 'no policy class: the tenant’s kept',
      tenant: { runtimeClassName: 'kata' },
      expected: 'kata',
    },
    { name: 'no policy class, none asked: none', tenant: {}, expected: undefined },
    {
      name: 'a Pod without one gets the policy’s',
      tenant: {},
      workloads: policy(GVISOR),
      expected: 'gvisor',
    },
    {
      name: 'an empty one counts as none',
      tenant: { runtimeClassName: '' },
      workloads: policy(GVISOR),
      expected: 'gvisor',
    },
    {
      name: 'the very class asked: kept',
      tenant: GVISOR,
      workloads: policy(GVISOR),
      expected: 'gvisor',
    },
  ];
  it.each(cases)('$name', ({ tenant, workloads, expected }) => {
    const result = translated(tenant, workloads);
    if (!('host' in result)) throw new Error(result.refused);
    expect((result.host.spec as Spec).runtimeClassName).toBe(expected);
  });

  it('another class is refused, naming both, never changed into the policy’s', () => {
    expect(translated({ runtimeClassName: 'runc' }, policy(GVISOR))).toEqual({
      refused:
        'the Pod asks for runtime class "runc" (spec.runtimeClassName), and the policy runs every Pod with "gvisor" (spec.workloads.runtimeClassName); leave spec.runtimeClassName out or set it to "gvisor"',
    });
  });
});

describe('scheduler name and tolerate-all', () => {
  const scheduler = (name: string) =>
    `the Pod names its own scheduler (spec.schedulerName: "${name}"), which the policy does not allow (spec.workloads.allowSchedulerName); the host's default scheduler places it otherwise`;
  const tolerateAll = (at: number) =>
    `the Pod tolerates every taint (spec.tolerations[${at}]: operator Exists without a key), which would let it onto nodes set aside for others, and the policy does not allow it (spec.workloads.allowTolerateAll); name the taint's key`;
  const cases: Array<{ name: string; spec: Spec; workloads?: WorkloadPolicy; expected?: string }> =
    [
      {
        name: 'the default scheduler, as the tenant’s apiserver defaults it',
        spec: { schedulerName: 'default-scheduler' },
      },
      { name: 'an empty scheduler name', spec: { schedulerName: '' } },
      {
        name: 'its own scheduler: refused',
        spec: { schedulerName: 'bin-packer' },
        expected: scheduler('bin-packer'),
      },
      {
        name: 'its own scheduler, allowed',
        spec: { schedulerName: 'bin-packer' },
        workloads: policy({ allowSchedulerName: true }),
      },
      {
        name: 'Exists without a key: refused',
        spec: { tolerations: [ALL] },
        expected: tolerateAll(0),
      },
      {
        name: 'Exists without a key for one effect: still every taint of it, refused at its index',
        spec: {
          tolerations: [
            { key: 'gpu', operator: 'Exists' },
            { operator: 'Exists', effect: 'NoSchedule', key: '' },
          ],
        },
        expected: tolerateAll(1),
      },
      {
        name: 'Exists with a key: one taint, kept (where the policy allows that taint)',
        spec: { tolerations: [{ key: 'gpu', operator: 'Exists' }] },
        workloads: policy({ scheduling: { tolerations: [{ key: 'gpu', operator: 'Exists' }] } }),
      },
      {
        name: 'Equal without a key (the API refuses it anyway): not tolerate-all',
        spec: { tolerations: [{ operator: 'Equal', value: 'x' }] },
        workloads: policy({ scheduling: { tolerations: [ALL] } }),
      },
      {
        name: 'tolerate-all, allowed',
        spec: { tolerations: [ALL] },
        workloads: policy({ allowTolerateAll: true }),
      },
      {
        name: 'the policy’s own tolerate-all is the operator’s: the tenant’s Pod is not refused for it',
        spec: {},
        workloads: policy({ tolerations: [ALL] }),
      },
    ];
  it.each(cases)('$name', ({ spec, workloads, expected }) => {
    expect(sandboxRefusal({ containers: [], ...spec }, workloads)).toBe(expected);
    const result = translated(spec, workloads);
    expect('refused' in result ? result.refused : undefined).toBe(expected);
  });

  it('tolerates-all is Exists with no key only', () => {
    expect(
      [ALL, { operator: 'Exists', key: null }, { operator: 'Exists', key: 'k' }, 'x'].map(
        toleratesAll,
      ),
    ).toEqual([true, true, false, false]);
  });
});

describe('a runtime class the policy names later, on a running Pod', () => {
  const tenantPod: KubeObject = {
    ...pod({}),
    metadata: { namespace: 'shop', name: 'web', uid: 'pod-uid' },
  };

  it('is the Skip that names spec.runtimeClassName, with no write, pass after pass; a new Pod gets it', async () => {
    const { tenantApi, hostApi } = clusters([tenantPod], [], { toHost: [POD] });
    const run = () => runPass({ tenant: TENANT, tenantApi, hostApi });
    expect((await run()).errors).toEqual([]);
    const created = hostApi.peek(POD, HOST_NS, hn('shop', 'web'));
    expect((created?.spec as Spec | undefined)?.runtimeClassName).toBeUndefined();

    hostApi.replace(tenantCluster({ toHost: [POD], workloads: GVISOR }));
    for (const _ of [1, 2]) {
      const result = await run();
      expect(result.errors).toEqual([]);
      expect(result.decisions.map((d) => [d.action, d.reason])).toEqual([
        [
          'Skip',
          "the Pod's spec.runtimeClassName changed; a running Pod cannot change it; delete the tenant Pod to recreate it",
        ],
      ]);
      expect(result.requests.host.writes).toBe(0);
      expect(hostApi.peek(POD, HOST_NS, hn('shop', 'web'))?.metadata.resourceVersion).toBe(
        created?.metadata.resourceVersion,
      );
    }

    tenantApi.seed({ ...tenantPod, metadata: { namespace: 'shop', name: 'api', uid: 'api-uid' } });
    await run();
    expect(
      (hostApi.peek(POD, HOST_NS, hn('shop', 'api'))?.spec as Spec | undefined)?.runtimeClassName,
    ).toBe('gvisor');
  });
});
