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
    {
      name: 'enforced scheduling: a node selector and tolerations',
      workloads: {
        nodeSelector: { 'pool.example.com/tenant': 'dev', dedicated: '' },
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'tenants', effect: 'NoSchedule' },
          { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
        ],
      },
      expected: {
        nodeSelector: { 'pool.example.com/tenant': 'dev', dedicated: '' },
        tolerations: [
          { key: 'dedicated', operator: 'Equal', value: 'tenants', effect: 'NoSchedule' },
          { operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
        ],
      },
    },
    {
      name: 'host storage classes for tenant ones',
      workloads: { storageClasses: { fast: 'tenant-dev-ssd', standard: 'tenant-dev-hdd' } },
      expected: { storageClasses: { fast: 'tenant-dev-ssd', standard: 'tenant-dev-hdd' } },
    },
  ])('$name', ({ workloads, expected }) => {
    expect(parseSyncPolicy('dev', spec(workloads)).workloads).toEqual(expected);
  });

  it.each([
    {
      name: 'no volumes section: no CSI driver, any named class',
      volumes: undefined,
      expected: { csiDrivers: [] },
    },
    {
      name: 'CSI drivers and storage classes, "" (static binding) among them',
      volumes: { csiDrivers: ['secrets-store.csi.k8s.io'], storageClasses: ['gp3', ''] },
      expected: { csiDrivers: ['secrets-store.csi.k8s.io'], storageClasses: ['gp3', ''] },
    },
    {
      name: 'an empty class list: only the host default',
      volumes: { storageClasses: [] },
      expected: { csiDrivers: [], storageClasses: [] },
    },
    {
      name: 'host volumes a claim may name',
      volumes: { volumeNames: ['pv-dev-data'] },
      expected: { csiDrivers: [], volumeNames: ['pv-dev-data'] },
    },
  ])('volume limits: $name', ({ volumes, expected }) => {
    const workloads = volumes === undefined ? { podSecurity: 'baseline' } : { volumes };
    expect(parseSyncPolicy('dev', spec(workloads)).workloads?.isolation?.volumes).toEqual(expected);
  });

  it.each([
    {
      name: 'a node selector that is not a map',
      workloads: { nodeSelector: ['pool=dev'] },
      says: 'spec.workloads.nodeSelector must map node label keys to values',
    },
    {
      name: 'a node selector key that is no label key',
      workloads: { nodeSelector: { 'not a key': 'x' } },
      says: 'spec.workloads.nodeSelector: "not a key" is not a label key',
    },
    {
      name: 'a node selector value that is no label value',
      workloads: { nodeSelector: { pool: 'a b' } },
      says: 'spec.workloads.nodeSelector.pool must be a label value',
    },
    {
      name: 'tolerations that are not a list',
      workloads: { tolerations: { key: 'a' } },
      says: 'spec.workloads.tolerations must be a list of tolerations',
    },
    {
      name: 'a toleration that is no object',
      workloads: { tolerations: ['dedicated'] },
      says: 'spec.workloads.tolerations[0] must be a toleration (key, operator, value, effect)',
    },
    {
      name: 'an unknown operator',
      workloads: { tolerations: [{ key: 'a', operator: 'In' }] },
      says: 'spec.workloads.tolerations[0]: operator must be Exists or Equal',
    },
    {
      name: 'no key without Exists',
      workloads: { tolerations: [{ value: 'x' }] },
      says: 'spec.workloads.tolerations[0]: operator must be Exists when key is empty',
    },
    {
      name: 'a value with Exists',
      workloads: { tolerations: [{ key: 'a', operator: 'Exists', value: 'x' }] },
      says: 'spec.workloads.tolerations[0]: value must be empty for Exists',
    },
    {
      name: 'an unknown effect',
      workloads: { tolerations: [{ key: 'a', effect: 'NoRun' }] },
      says: 'spec.workloads.tolerations[0]: effect must be NoSchedule, PreferNoSchedule or NoExecute',
    },
    {
      name: 'tolerationSeconds without NoExecute',
      workloads: { tolerations: [{ key: 'a', effect: 'NoSchedule', tolerationSeconds: 5 }] },
      says: 'spec.workloads.tolerations[0]: tolerationSeconds needs effect NoExecute',
    },
    {
      name: 'an unknown toleration field',
      workloads: { tolerations: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      says: 'spec.workloads.tolerations[0]: has an unknown field "values"',
    },
    {
      name: 'a host volume name that is no PersistentVolume name',
      workloads: { volumes: { volumeNames: ['PV 1'] } },
      says: 'spec.workloads.volumes.volumeNames must be a list of PersistentVolume names',
    },
    {
      name: 'a scheduling toleration, named at its own path',
      workloads: { scheduling: { tolerations: [{ key: 'a', operator: 'Exists', value: 'x' }] } },
      says: 'spec.workloads.scheduling.tolerations[0]: value must be empty for Exists',
    },
    {
      name: 'storage classes that are not a map',
      workloads: { storageClasses: 'fast' },
      says: 'spec.workloads.storageClasses must map tenant storage class names to host ones',
    },
    {
      name: 'a storage class that is no class name',
      workloads: { storageClasses: { fast: 'Not Valid' } },
      says: 'spec.workloads.storageClasses must map tenant storage class names to host ones ("fast" is not)',
    },
    {
      name: 'CSI drivers that are not a list',
      workloads: { volumes: { csiDrivers: 'secrets-store.csi.k8s.io' } },
      says: 'spec.workloads.volumes.csiDrivers must be a list of non-empty strings',
    },
    {
      name: 'a storage class that is no class name',
      workloads: { volumes: { storageClasses: ['Fast SSD'] } },
      says: 'spec.workloads.volumes.storageClasses must be a list of storage class names (or "" for no class)',
    },
    {
      name: 'volumes that are not an object',
      workloads: { volumes: ['csi'] },
      says: 'spec.workloads.volumes must be an object',
    },
  ])('refuses $name, saying so', ({ workloads, says }) => {
    expect(() => parseSyncPolicy('dev', spec(workloads))).toThrow(says);
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
