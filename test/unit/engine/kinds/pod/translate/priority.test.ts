/** The host priority class of a host Pod: cleared, unless the policy names host classes. */
import { describe, expect, it } from '@jest/globals';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import type { WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

const PRIORITY = { priority: 1000, preemptionPolicy: 'Never', overhead: { cpu: '10m' } };

function hostSpec(tenantClass: string | undefined, workloads?: WorkloadPolicy) {
  const spec = {
    automountServiceAccountToken: false,
    containers: [{ name: 'web', image: 'nginx:1' }],
    ...(tenantClass === undefined ? {} : { priorityClassName: tenantClass }),
    ...PRIORITY,
  };
  const result = translate(tenantObject('v1', 'Pod', { spec }), {
    tenant: TENANT,
    hostNamespace: HOST_NAMESPACE,
    ...(workloads ? { workloads } : {}),
  });
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host.spec as Record<string, unknown>;
}

describe('host priority classes', () => {
  const policy: WorkloadPolicy = {
    priorityClassName: 'tenant-default',
    priorityClasses: { critical: 'tenant-high' },
  };
  it.each([
    {
      name: 'no policy: the class is cleared',
      tenantClass: 'critical',
      workloads: undefined,
      expected: undefined,
    },
    {
      name: 'a mapped class: its host class',
      tenantClass: 'critical',
      workloads: policy,
      expected: 'tenant-high',
    },
    {
      name: 'an unmapped class: the default',
      tenantClass: 'batch',
      workloads: policy,
      expected: 'tenant-default',
    },
    {
      name: 'no class: the default',
      tenantClass: undefined,
      workloads: policy,
      expected: 'tenant-default',
    },
    {
      name: 'an unmapped class without a default: cleared',
      tenantClass: 'batch',
      workloads: { priorityClasses: { critical: 'tenant-high' } },
      expected: undefined,
    },
  ])('$name', ({ tenantClass, workloads, expected }) => {
    const spec = hostSpec(tenantClass, workloads);
    expect(spec.priorityClassName).toBe(expected);
    // Only the class: the host's admission derives priority and preemption from it.
    for (const field of ['priority', 'preemptionPolicy', 'overhead']) {
      expect({ field, value: spec[field] }).toEqual({ field, value: undefined });
    }
  });
});
