/** `spec.workloads`: parsed with the rest of the policy, every problem reported. */
import { describe, expect, it } from '@jest/globals';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';

const spec = (workloads: unknown) => ({ hostNamespace: 'tenant-dev', workloads });

describe('spec.workloads', () => {
  it.each([
    { name: 'absent: the hardened default', workloads: undefined, expected: undefined },
    { name: 'empty', workloads: {}, expected: {} },
    {
      name: 'host access allowed, a host service account named',
      workloads: { allowHostAccess: true, hostServiceAccountName: 'tenant-pods' },
      expected: { allowHostAccess: true, hostServiceAccountName: 'tenant-pods' },
    },
    {
      name: 'host priority classes: a default and a mapping',
      workloads: { priorityClassName: 'tenant-low', priorityClasses: { critical: 'tenant-high' } },
      expected: { priorityClassName: 'tenant-low', priorityClasses: { critical: 'tenant-high' } },
    },
  ])('$name', ({ workloads, expected }) => {
    expect(parseSyncPolicy('dev', spec(workloads)).workloads).toEqual(expected);
  });

  it('reports every problem at once', () => {
    expect(() =>
      parseSyncPolicy('dev', spec({ allowHostAccess: 'yes', hostServiceAccountName: 'Not Valid' })),
    ).toThrow(/allowHostAccess must be true or false[\s\S]*hostServiceAccountName must be/);
    expect(() => parseSyncPolicy('dev', spec([]))).toThrow(/spec\.workloads must be an object/);
    expect(() =>
      parseSyncPolicy('dev', spec({ priorityClassName: 7, priorityClasses: { a: 'Not Valid' } })),
    ).toThrow(/priorityClassName must be a priority class name[\s\S]*priorityClasses must map/);
  });
});
