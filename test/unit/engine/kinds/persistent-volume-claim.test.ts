/**
 * The claim translator: data sources renamed, storage classes mapped by the policy, bindings
 * host-owned, updates of the requests only.
 */
import { describe, expect, it } from '@jest/globals';
import { claimUpdateBody } from '../../../../lib/engine/kinds/persistent-volume-claim.js';
import { translate } from '../../../../lib/engine/kinds/registry.js';
import type { WorkloadPolicy } from '../../../../lib/engine/policy/workloads.js';
import { HOST_NAMESPACE, hostOf, TENANT, tenantObject } from './support.js';

/** Why the translator refuses `source`, or `undefined` when it goes to the host. */
function refusalOf(source: ReturnType<typeof claim>): string | undefined {
  const result = translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE });
  return 'refused' in result ? result.refused : undefined;
}

const claim = (spec: Record<string, unknown>) =>
  tenantObject('v1', 'PersistentVolumeClaim', { spec });
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

describe('PersistentVolumeClaim translator', () => {
  const cases = [
    {
      name: 'storageClassName kept; volumeName and selector host-owned',
      spec: {
        ...base,
        storageClassName: 'fast',
        volumeName: 'pv-tenant-7',
        selector: { matchLabels: { disk: 'ssd' } },
      },
      expected: { ...base, storageClassName: 'fast' },
    },
    {
      name: 'a clone’s source claim is its host copy',
      spec: { ...base, dataSource: { kind: 'PersistentVolumeClaim', name: 'golden' } },
      expected: {
        ...base,
        dataSource: { kind: 'PersistentVolumeClaim', name: 'golden-x-shop-x-dev' },
      },
    },
    {
      name: 'a snapshot source in dataSource and dataSourceRef: both the host copy',
      spec: {
        ...base,
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' },
        dataSourceRef: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap',
        },
      },
      expected: {
        ...base,
        dataSource: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap-x-shop-x-dev',
        },
        dataSourceRef: {
          apiGroup: 'snapshot.storage.k8s.io',
          kind: 'VolumeSnapshot',
          name: 'snap-x-shop-x-dev',
        },
      },
    },
    {
      name: 'a source naming the claim’s own namespace is its host copy, the namespace dropped',
      spec: {
        ...base,
        dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden', namespace: 'shop' },
      },
      expected: {
        ...base,
        dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden-x-shop-x-dev' },
      },
    },
  ];
  it.each(cases)('$name', ({ spec, expected }) => {
    expect(hostOf(claim(spec)).spec).toEqual(expected);
  });

  it('a source in another namespace is refused (a Skip), naming the field and namespace', () => {
    const crossing = claim({
      ...base,
      dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'golden', namespace: 'base' },
    });
    expect(refusalOf(crossing)).toBe(
      'its data source is in another namespace (spec.dataSourceRef: namespace "base"), which is not supported on the host: use a source in the claim\'s namespace',
    );
    expect(refusalOf(claim(base))).toBeUndefined();
  });

  const bound = () => {
    const host = hostOf(claim(base));
    return {
      ...host,
      metadata: {
        ...host.metadata,
        uid: 'h',
        resourceVersion: '7',
        managedFields: [{ manager: 'x' }],
      },
      spec: {
        ...base,
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        volumeName: 'pvc-1234',
      },
      status: { phase: 'Bound' },
    };
  };
  const updates = [
    {
      name: 'nothing but the requests may change: an unchanged claim changes nothing',
      spec: base,
      changed: [],
    },
    {
      name: 'an immutable field the tenant changed is not sent',
      spec: { ...base, accessModes: ['ReadWriteMany'] },
      changed: [],
    },
    {
      name: 'an expansion changes the requests, over the host’s binding and defaults',
      spec: { ...base, resources: { requests: { storage: '5Gi' } } },
      changed: ['spec.resources.requests'],
      expectedSpec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '5Gi' } },
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        volumeName: 'pvc-1234',
      },
    },
  ];
  it.each(updates)('$name', ({ spec, changed, expectedSpec }) => {
    const observed = bound();
    const update = claimUpdateBody(hostOf(claim(spec)), observed);
    expect(update.changed).toEqual(changed);
    expect(update.body.spec).toEqual(expectedSpec ?? observed.spec);
    expect(update.body.status).toBeUndefined();
    expect(update.body.metadata).toEqual({ ...observed.metadata, managedFields: undefined });
    expect(update.body.metadata.resourceVersion).toBe('7');
  });
});

describe('PersistentVolumeClaim translator: storage classes the policy maps', () => {
  const storageClasses = { fast: 'tenant-dev-ssd', standard: 'tenant-dev-hdd' };
  const cases: Array<{
    name: string;
    tenantClass?: string;
    policy?: WorkloadPolicy;
    expectedHostClass?: string;
  }> = [
    {
      name: 'a mapped class is the host class',
      tenantClass: 'fast',
      policy: { storageClasses },
      expectedHostClass: 'tenant-dev-ssd',
    },
    {
      name: 'an unmapped class is kept',
      tenantClass: 'gold',
      policy: { storageClasses },
      expectedHostClass: 'gold',
    },
    {
      name: 'no class (the host’s default) stays none',
      policy: { storageClasses },
      expectedHostClass: undefined,
    },
    {
      name: 'the empty class (no dynamic provisioning) stays empty',
      tenantClass: '',
      policy: { storageClasses: { ...storageClasses, '': 'never' } },
      expectedHostClass: '',
    },
    { name: 'no policy: kept', tenantClass: 'fast', expectedHostClass: 'fast' },
  ];
  it.each(cases)('$name', ({ tenantClass, policy, expectedHostClass }) => {
    const source = claim(
      tenantClass === undefined ? base : { ...base, storageClassName: tenantClass },
    );
    const result = translate(source, {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: policy,
    });
    if (!('host' in result)) throw new Error(result.refused);
    expect((result.host.spec as Record<string, unknown>).storageClassName).toBe(expectedHostClass);
  });

  it('a mapping changed later writes nothing to an existing claim (its class cannot change)', () => {
    const target = { tenant: TENANT, hostNamespace: HOST_NAMESPACE };
    const translated = (workloads: WorkloadPolicy) => {
      const result = translate(claim({ ...base, storageClassName: 'fast' }), {
        ...target,
        workloads,
      });
      if (!('host' in result)) throw new Error(result.refused);
      return result.host;
    };
    const observed = translated({ storageClasses: { fast: 'old' } });
    const update = claimUpdateBody(translated({ storageClasses: { fast: 'new' } }), observed);
    expect(update.changed).toEqual([]);
  });
});
