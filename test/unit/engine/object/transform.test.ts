import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Labels, reverseLookup } from '../../../../lib/engine/index.js';
import { kindModule } from '../../../../lib/engine/kinds/registry.js';
import { Annotations, isReservedKey } from '../../../../lib/engine/names/metadata.js';
import { ownedKeysOf, toHostObject } from '../../../../lib/engine/object/transform.js';
import type { KubeObject } from '../../../../lib/ports/index.js';

/** The host-owned fields of a core kind, as its module names them. */
const hostOwnedOf = (kind: string) => kindModule({ apiVersion: 'v1', kind }).hostOwned;

const target = { tenant: 'dev', hostNamespace: 'tenant-dev' };

function tenantConfigMap(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      namespace: 'default',
      uid: 'uid-1',
      resourceVersion: '42',
      selfLink: '/api/v1/namespaces/default/configmaps/settings',
      creationTimestamp: '2025-01-01T00:00:00Z',
      generation: 3,
      managedFields: [{ manager: 'kubectl' }],
      ownerReferences: [{ kind: 'Deployment', name: 'x', uid: 'o', apiVersion: 'apps/v1' }],
      finalizers: ['example.com/keep'],
      deletionTimestamp: '2025-01-02T00:00:00Z',
      deletionGracePeriodSeconds: 30,
      generateName: 'settings-',
      labels: {
        app: 'web',
        'app.kubernetes.io/managed-by': 'helm',
        'tenantplane.io/tenant': 'victim',
        'x.tenantplane.io/evil': 'yes',
      },
      annotations: {
        note: 'hello',
        'tenantplane.io/virtual-name': 'spoofed',
        'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"k":"v"}}',
      },
    },
    data: { key: 'value' },
    status: { phase: 'whatever' },
  };
}

describe('toHostObject', () => {
  it('renames, re-namespaces, merges the reverse mapping and strips server fields', () => {
    const host = toHostObject(tenantConfigMap(), target);
    expect(host).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings-x-default-x-dev',
        namespace: 'tenant-dev',
        labels: {
          app: 'web',
          [Labels.ManagedBy]: 'tenantplane',
          [Labels.Tenant]: 'dev',
          [Labels.VirtualNamespace]: 'default',
          [Labels.Kind]: 'ConfigMap',
        },
        annotations: {
          note: 'hello',
          [Annotations.VirtualNamespace]: 'default',
          [Annotations.VirtualName]: 'settings',
          [Annotations.VirtualUid]: 'uid-1',
          [Annotations.OwnedKeys]: '{"labels":["app"],"annotations":["note"]}',
        },
      },
      data: { key: 'value' },
    });
    expect(reverseLookup(host)).toEqual({
      tenant: 'dev',
      kind: 'ConfigMap',
      virtualNamespace: 'default',
      virtualName: 'settings',
      virtualUid: 'uid-1',
    });
    expect(ownedKeysOf(host)).toEqual({ labels: ['app'], annotations: ['note'] });
  });

  it('keeps the verbatim name in an annotation when the host name is hashed', () => {
    const source = tenantConfigMap();
    source.metadata.name = 'a'.repeat(200);
    const host = toHostObject(source, target);
    expect(host.metadata.name.length).toBeLessThanOrEqual(63);
    expect(host.metadata.annotations?.[Annotations.VirtualName]).toBe('a'.repeat(200));
  });

  it('strips host-owned Service, PVC and Pod fields and records a spec digest', () => {
    const service = toHostObject(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          type: 'NodePort',
          clusterIP: '10.0.0.1',
          clusterIPs: ['10.0.0.1'],
          ipFamilies: ['IPv4'],
          healthCheckNodePort: 30000,
          ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }],
          selector: { app: 'web' },
        },
      },
      target,
      true,
      hostOwnedOf('Service'),
    );
    expect(service.spec).toEqual({
      type: 'NodePort',
      ports: [{ port: 80, protocol: 'TCP' }],
      selector: { app: 'web' },
    });
    expect(service.metadata.annotations?.[Annotations.SpecHash]).toMatch(/^[0-9a-f]{16}$/);
    const pvc = toHostObject(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'd', namespace: 'n' },
        spec: { volumeName: 'pv-1', accessModes: ['ReadWriteOnce'] },
      },
      target,
      true,
      hostOwnedOf('PersistentVolumeClaim'),
    );
    expect(pvc.spec).toEqual({ accessModes: ['ReadWriteOnce'] });
    const pod = toHostObject(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: 'n' },
        spec: { nodeName: 'node-1', containers: [] },
      },
      target,
      true,
      hostOwnedOf('Pod'),
    );
    expect(pod.spec).toEqual({ containers: [] });
  });

  it('never mutates its input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(fc.string(), fc.string()), (content, labels) => {
        const source: KubeObject = {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'svc', namespace: 'ns', labels, annotations: { ...labels } },
          spec: { clusterIP: '1.2.3.4', ports: [{ port: 1, nodePort: 2 }], content },
          data: content,
        };
        const before = structuredClone(source);
        const host = toHostObject(source, target);
        expect(source).toEqual(before);
        (host.spec as Record<string, unknown>).mutated = true;
        expect(source).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('never carries tenant-supplied reserved keys', () => {
    const reservedKey = fc.oneof(
      fc.string({ maxLength: 20 }).map((s) => `tenantplane.io/${s}`),
      fc.string({ maxLength: 20 }).map((s) => `sub.tenantplane.io/${s}`),
      fc.constant('app.kubernetes.io/managed-by'),
    );
    const key = fc.oneof(reservedKey, fc.string({ maxLength: 30 }));
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.string()),
        fc.dictionary(key, fc.string()),
        (labels, annotations) => {
          const host = toHostObject(
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'n', namespace: 'ns', labels, annotations },
            },
            target,
          );
          const engineLabels = { ...host.metadata.labels };
          const engineAnnotations = { ...host.metadata.annotations };
          // Every reserved key on the output carries the engine's value, never the tenant's.
          for (const [k, v] of Object.entries(engineLabels)) {
            if (isReservedKey(k)) expect(Object.values(Labels) as string[]).toContain(k);
            else expect(labels[k]).toBe(v);
          }
          for (const k of Object.keys(engineAnnotations)) {
            if (isReservedKey(k)) expect(Object.values(Annotations) as string[]).toContain(k);
          }
          expect(engineLabels[Labels.Tenant]).toBe('dev');
          expect(engineLabels[Labels.ManagedBy]).toBe('tenantplane');
          expect(engineAnnotations[Annotations.VirtualName]).toBe('n');
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('reverseLookup', () => {
  it('is undefined for objects without complete tenantplane metadata', () => {
    const base = toHostObject(tenantConfigMap(), target);
    expect(reverseLookup({ ...base, metadata: { ...base.metadata, labels: {} } })).toBeUndefined();
    expect(
      reverseLookup({ ...base, metadata: { ...base.metadata, annotations: {} } }),
    ).toBeUndefined();
    expect(
      reverseLookup({
        ...base,
        metadata: {
          ...base.metadata,
          labels: { ...base.metadata.labels, [Labels.ManagedBy]: 'helm' },
        },
      }),
    ).toBeUndefined();
  });
});
