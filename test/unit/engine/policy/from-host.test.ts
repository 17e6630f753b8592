/** `spec.fromHost`: parsed with the rest of the policy, every problem reported; what it selects. */
import { describe, expect, it } from '@jest/globals';
import {
  compileSelection,
  fromHostKinds,
  selectedBy,
} from '../../../../lib/engine/policy/from-host.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';

const spec = (fromHost: unknown) => ({ hostNamespace: 'tenant-dev', fromHost });

describe('spec.fromHost', () => {
  it.each([
    { name: 'absent: no classes', fromHost: undefined, expected: undefined },
    { name: 'empty: no classes', fromHost: {}, expected: {} },
    {
      name: 'by name, duplicates once',
      fromHost: { storageClasses: { names: ['standard', 'fast', 'standard'] } },
      expected: { storageClasses: { names: ['standard', 'fast'] } },
    },
    {
      name: 'by label selector',
      fromHost: { ingressClasses: { labelSelector: 'tenantplane.example/offer in (dev,all)' } },
      expected: { ingressClasses: { labelSelector: 'tenantplane.example/offer in (dev,all)' } },
    },
    {
      name: 'both, for every class kind',
      fromHost: {
        storageClasses: { names: ['a'], labelSelector: 'x=y' },
        ingressClasses: { names: ['nginx'] },
        priorityClasses: { names: ['tenant-high'] },
        runtimeClasses: { labelSelector: 'sandbox' },
      },
      expected: {
        storageClasses: { names: ['a'], labelSelector: 'x=y' },
        ingressClasses: { names: ['nginx'] },
        priorityClasses: { names: ['tenant-high'] },
        runtimeClasses: { labelSelector: 'sandbox' },
      },
    },
  ])('$name', ({ fromHost, expected }) => {
    expect(parseSyncPolicy('dev', spec(fromHost)).fromHost).toEqual(expected);
  });

  it.each([
    { name: 'not an object', fromHost: [], problem: /spec\.fromHost must be an object/ },
    {
      name: 'an unknown class kind',
      fromHost: { nodes: { names: ['a'] } },
      problem:
        /spec\.fromHost\.nodes is not a class kind \(storageClasses, ingressClasses, priorityClasses, runtimeClasses, gatewayClasses\)/,
    },
    {
      name: 'a selection that selects nothing',
      fromHost: { storageClasses: {} },
      problem: /spec\.fromHost\.storageClasses must have names or a labelSelector/,
    },
    {
      name: 'an unknown field of a selection',
      fromHost: { storageClasses: { names: ['a'], selector: 'x' } },
      problem: /spec\.fromHost\.storageClasses\.selector is not a field/,
    },
    {
      name: 'names that are not class names',
      fromHost: { priorityClasses: { names: ['Not Valid'] } },
      problem: /spec\.fromHost\.priorityClasses\.names: "Not Valid" is not a class name/,
    },
    {
      name: 'names not a list of strings',
      fromHost: { priorityClasses: { names: 'a' } },
      problem: /names must be a list of class names/,
    },
    {
      name: 'a blank selector (it would select every host class)',
      fromHost: { runtimeClasses: { labelSelector: ' ' } },
      problem: /labelSelector must not be empty/,
    },
    {
      name: 'an invalid selector',
      fromHost: { runtimeClasses: { labelSelector: 'a in (' } },
      problem: /spec\.fromHost\.runtimeClasses\.labelSelector: unbalanced/,
    },
  ])('refuses $name', ({ fromHost, problem }) => {
    expect(() => parseSyncPolicy('dev', spec(fromHost))).toThrow(problem);
  });

  it('reports every problem at once', () => {
    expect(() =>
      parseSyncPolicy(
        'dev',
        spec({ storageClasses: { names: [7] }, ingressClasses: { labelSelector: 3 } }),
      ),
    ).toThrow(/storageClasses\.names must be[\s\S]*ingressClasses\.labelSelector must be a string/);
  });

  it('names the Kinds it selects classes of, in pass order', () => {
    expect(fromHostKinds(undefined)).toEqual([]);
    expect(
      fromHostKinds({ runtimeClasses: { names: ['a'] }, storageClasses: { names: ['b'] } }),
    ).toEqual(['StorageClass', 'RuntimeClass']);
  });
});

describe('selectedBy', () => {
  const hostClass = (name: string, labels?: Record<string, string>) => ({
    metadata: { name, ...(labels ? { labels } : {}) },
  });
  it.each([
    {
      name: 'a named class',
      selection: { names: ['fast'] },
      object: hostClass('fast'),
      by: 'name',
    },
    {
      name: 'a class the selector matches',
      selection: { labelSelector: 'offer=dev' },
      object: hostClass('gold', { offer: 'dev' }),
      by: 'selector',
    },
    {
      name: 'a name wins over the selector',
      selection: { names: ['gold'], labelSelector: 'offer=dev' },
      object: hostClass('gold', { offer: 'dev' }),
      by: 'name',
    },
    {
      name: 'neither',
      selection: { names: ['fast'], labelSelector: 'offer=dev' },
      object: hostClass('slow', { offer: 'prod' }),
      by: undefined,
    },
    { name: 'no selection', selection: undefined, object: hostClass('fast'), by: undefined },
  ])('$name: $by', ({ selection, object, by }) => {
    expect(selectedBy(compileSelection(selection), object)).toBe(by);
  });
});
