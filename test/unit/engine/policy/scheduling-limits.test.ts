/**
 * `spec.workloads.scheduling`: the tolerations and node labels a tenant Pod may ask for, parsed
 * with every problem named, and the `PodTolerationRestriction` rule that says whether an allowed
 * toleration covers the one a Pod asks for.
 */
import { describe, expect, it } from '@jest/globals';
import {
  coversToleration,
  NO_SCHEDULING_LIMITS,
  parseSchedulingLimits,
} from '../../../../lib/engine/policy/scheduling-limits.js';
import type { Toleration } from '../../../../lib/engine/policy/workloads.js';

describe('parsing spec.workloads.scheduling', () => {
  const cases: Array<{ name: string; value: unknown; expected: unknown; problems?: string[] }> = [
    { name: 'absent: only the defaults', value: undefined, expected: NO_SCHEDULING_LIMITS },
    {
      name: 'tolerations and node labels',
      value: {
        tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        nodeLabels: ['disk', 'customer=me', 'example.com/pool='],
      },
      expected: {
        tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        nodeLabels: [
          { key: 'disk' },
          { key: 'customer', value: 'me' },
          { key: 'example.com/pool', value: '' },
        ],
      },
    },
    {
      name: 'not an object',
      value: ['x'],
      expected: NO_SCHEDULING_LIMITS,
      problems: ['spec.workloads.scheduling must be an object'],
    },
    {
      name: 'bad entries named, good ones kept',
      value: {
        tolerations: [{ key: 'a', operator: 'Sometimes' }, { key: 'b' }],
        nodeLabels: ['ok', 'bad key', 7],
      },
      expected: { tolerations: [{ key: 'b' }], nodeLabels: [{ key: 'ok' }] },
      problems: [
        'spec.workloads.scheduling.tolerations[0]: operator must be Exists or Equal',
        'spec.workloads.scheduling.nodeLabels has "bad key", not key or key=value',
        'spec.workloads.scheduling.nodeLabels has 7, not key or key=value',
      ],
    },
    {
      name: 'lists that are not lists',
      value: { tolerations: 'x', nodeLabels: 'disk' },
      expected: NO_SCHEDULING_LIMITS,
      problems: [
        'spec.workloads.scheduling.tolerations must be a list of tolerations',
        'spec.workloads.scheduling.nodeLabels must be a list of node label keys or key=value',
      ],
    },
  ];
  it.each(cases)('$name', ({ value, expected, problems = [] }) => {
    const found: string[] = [];
    expect(parseSchedulingLimits(value, found)).toEqual(expected);
    expect(found).toEqual(problems);
  });
});

describe('whether an allowed toleration covers the one asked (PodTolerationRestriction)', () => {
  const cases: Array<[string, Toleration, Record<string, unknown>, boolean]> = [
    ['the same', { key: 'k', value: 'v' }, { key: 'k', operator: 'Equal', value: 'v' }, true],
    ['another key', { key: 'k', operator: 'Exists' }, { key: 'j', operator: 'Exists' }, false],
    [
      'Exists without a key covers every key',
      { operator: 'Exists' },
      { key: 'j', operator: 'Exists' },
      true,
    ],
    [
      'no effect covers every effect',
      { key: 'k', operator: 'Exists' },
      { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      true,
    ],
    [
      'an effect covers itself only',
      { key: 'k', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'k', operator: 'Exists' },
      false,
    ],
    ['Exists covers any value', { key: 'k', operator: 'Exists' }, { key: 'k', value: 'x' }, true],
    [
      'Equal does not cover Exists',
      { key: 'k', value: '' },
      { key: 'k', operator: 'Exists' },
      false,
    ],
    ['Equal covers its value only', { key: 'k', value: 'a' }, { key: 'k', value: 'b' }, false],
    [
      'seconds: a shorter stay',
      { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
      true,
    ],
    [
      'seconds: forever is longer',
      { key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, allowed, asked, expected) => {
    expect(coversToleration(allowed, asked)).toBe(expected);
  });
});
