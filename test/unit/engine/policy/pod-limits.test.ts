/** `spec.workloads.pods`: parsed with every problem named; absent, nothing beyond the tables. */
import { describe, expect, it } from '@jest/globals';
import { NO_POD_LIMITS, parsePodLimits } from '../../../../lib/engine/policy/pod-limits.js';
import { parseWorkloadPolicy, podLimitsOf } from '../../../../lib/engine/policy/workloads.js';

describe('parsePodLimits', () => {
  const cases: Array<{ name: string; value: unknown; limits?: object; problems: string[] }> = [
    { name: 'absent: none', value: undefined, limits: NO_POD_LIMITS, problems: [] },
    {
      name: 'every list',
      value: {
        allowFields: ['spec.newField', 'spec.containers[].newField'],
        trustBundleNames: ['corp-ca'],
        trustBundleSigners: ['example.com/corp'],
        podCertificateSigners: ['example.com/pods'],
      },
      limits: {
        allowFields: ['spec.newField', 'spec.containers[].newField'],
        trustBundleNames: ['corp-ca'],
        trustBundleSigners: ['example.com/corp'],
        podCertificateSigners: ['example.com/pods'],
      },
      problems: [],
    },
    {
      name: 'a path not under spec, a signer without a path',
      value: { allowFields: ['metadata.x'], podCertificateSigners: ['pods'] },
      problems: [
        'spec.workloads.pods.allowFields must be a list of field paths such as spec.newField or spec.containers[].newField',
        'spec.workloads.pods.podCertificateSigners must be a list of signer names such as example.com/ca',
      ],
    },
    {
      name: 'not an object',
      value: ['x'],
      limits: NO_POD_LIMITS,
      problems: ['spec.workloads.pods must be an object'],
    },
  ];
  it.each(cases)('$name', ({ value, limits, problems }) => {
    const found: string[] = [];
    const parsed = parsePodLimits(value, found);
    expect(found).toEqual(problems);
    if (limits) expect(parsed).toEqual(limits);
  });

  it('spec.workloads carries it; a policy without it has none', () => {
    const problems: string[] = [];
    const policy = parseWorkloadPolicy({ pods: { trustBundleNames: ['corp-ca'] } }, problems);
    expect(problems).toEqual([]);
    expect(podLimitsOf(policy).trustBundleNames).toEqual(['corp-ca']);
    expect(podLimitsOf(parseWorkloadPolicy({}, []))).toBe(NO_POD_LIMITS);
    expect(podLimitsOf(undefined)).toBe(NO_POD_LIMITS);
  });
});
