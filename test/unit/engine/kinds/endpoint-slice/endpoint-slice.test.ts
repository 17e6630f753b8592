/** The EndpointSlice translator: slices of Services without a selector, tied to the host copy. */
import { describe, expect, it } from '@jest/globals';
import { referencesOf, translate } from '../../../../../lib/engine/kinds/registry.js';
import { KubernetesKeys } from '../../../../../lib/engine/names/metadata.js';
import { hostName } from '../../../../../lib/engine/names/naming.js';
import { parseWorkloadPolicy } from '../../../../../lib/engine/policy/workloads.js';
import { HOST_NAMESPACE, hostOf, TENANT, tenantObject, translated } from '../support.js';

const LONG = 'a-service-name-long-enough-to-be-hashed-on-the-host';
const slice = (labels: Record<string, string>, endpoints: unknown[] = []) =>
  tenantObject(
    'discovery.k8s.io/v1',
    'EndpointSlice',
    { addressType: 'IPv4', ports: [{ name: 'http', port: 8080 }], endpoints },
    { name: 'db-1', labels },
  );

describe('EndpointSlice translator', () => {
  const cases: Array<{ name: string; labels: Record<string, string>; expectedService: string }> = [
    {
      name: 'the service-name label names the Service’s host copy',
      labels: { [KubernetesKeys.ServiceName]: 'db' },
      expectedService: 'db-x-shop-x-dev',
    },
    {
      name: 'a hashed host name included',
      labels: { [KubernetesKeys.ServiceName]: LONG },
      expectedService: hostName(LONG, 'shop', 'dev'),
    },
    {
      name: 'a slice the mirroring controller made is synced, managed by tenantplane on the host',
      labels: {
        [KubernetesKeys.ServiceName]: 'db',
        [KubernetesKeys.EndpointSliceManagedBy]: 'endpointslicemirroring-controller.k8s.io',
      },
      expectedService: 'db-x-shop-x-dev',
    },
  ];
  it.each(cases)('$name', ({ labels, expectedService }) => {
    const host = hostOf(slice(labels));
    expect(expectedService).not.toBe(labels[KubernetesKeys.ServiceName]);
    expect(host.metadata.name).toBe('db-1-x-shop-x-dev');
    expect(host.metadata.labels?.[KubernetesKeys.ServiceName]).toBe(expectedService);
    expect(host.metadata.labels?.[KubernetesKeys.EndpointSliceManagedBy]).toBe(
      'endpointslice-sync.tenantplane.io',
    );
  });

  it('renames target references into the host namespace, without the tenant’s uid', () => {
    // The addresses are the tenant's own Pods' and one inside the policy's blocks.
    const result = translate(
      slice({ [KubernetesKeys.ServiceName]: 'db' }, [
        {
          addresses: ['10.1.0.5'],
          targetRef: {
            kind: 'Pod',
            name: 'db-0',
            namespace: 'shop',
            uid: 'u',
            resourceVersion: '9',
          },
        },
        { addresses: ['10.1.0.6'], targetRef: { kind: 'Pod', name: 'db-1' } },
        { addresses: ['192.0.2.1'] },
      ]),
      {
        tenant: TENANT,
        hostNamespace: HOST_NAMESPACE,
        workloads: parseWorkloadPolicy({ endpoints: { cidrs: ['192.0.2.0/24'] } }, []),
        ownPodIps: new Set(['10.1.0.5', '10.1.0.6']),
      },
    );
    if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
    expect(result.host.endpoints).toEqual([
      {
        addresses: ['10.1.0.5'],
        targetRef: { kind: 'Pod', name: 'db-0-x-shop-x-dev', namespace: 'tenant-dev' },
      },
      {
        addresses: ['10.1.0.6'],
        targetRef: { kind: 'Pod', name: 'db-1-x-shop-x-dev', namespace: 'tenant-dev' },
      },
      { addresses: ['192.0.2.1'] },
    ]);
  });

  it('a slice the tenant’s EndpointSlice controller made stays in the tenant, saying why', () => {
    const result = translated(
      slice({
        [KubernetesKeys.ServiceName]: 'web',
        [KubernetesKeys.EndpointSliceManagedBy]: 'endpointslice-controller.k8s.io',
      }),
    );
    expect(result).toEqual({
      refused:
        "made by the tenant's EndpointSlice controller for a Service with a selector; the host's controller makes that Service's slices from the host Pods it selects",
    });
  });

  it('refers to its Service, which must be synced first', () => {
    expect(referencesOf(slice({ [KubernetesKeys.ServiceName]: 'db' }))).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Service',
        name: 'db',
        path: 'metadata.labels[kubernetes.io/service-name]',
        optional: false,
      },
    ]);
  });
});
