/**
 * Drift: what differs between the desired host object and the host's copy (field names only),
 * and the update body that converges the copy while keeping what the host owns.
 */
import { describe, expect, it } from '@jest/globals';
import { Labels } from '../../../../lib/engine/index.js';
import { writeTraits } from '../../../../lib/engine/kinds/registry.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import { bodyFor, driftOf, isSubset } from '../../../../lib/engine/object/drift.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { cm, HOST_NS, hostCopyOf, secret } from '../support.js';

describe('isSubset', () => {
  const cases: Array<{ name: string; desired: unknown; observed: unknown; expected: boolean }> = [
    { name: 'equal scalars', desired: 1, observed: 1, expected: true },
    { name: 'different scalars', desired: 1, observed: 2, expected: false },
    { name: 'a number is not its string', desired: 1, observed: '1', expected: false },
    { name: 'null and null', desired: null, observed: null, expected: true },
    { name: 'null is not missing', desired: null, observed: undefined, expected: false },
    { name: 'equal objects', desired: { a: 1 }, observed: { a: 1 }, expected: true },
    {
      name: 'extra observed fields are server defaults',
      desired: { a: 1 },
      observed: { a: 1, sessionAffinity: 'None' },
      expected: true,
    },
    {
      name: 'a missing desired field',
      desired: { a: 1, b: 2 },
      observed: { a: 1 },
      expected: false,
    },
    {
      name: 'an undefined desired field is no field',
      desired: { a: undefined },
      observed: {},
      expected: true,
    },
    {
      name: 'nested extras are defaults too',
      desired: { s: { a: 1 } },
      observed: { s: { a: 1, b: 2 } },
      expected: true,
    },
    { name: 'an object against a scalar', desired: { a: 1 }, observed: 'x', expected: false },
    { name: 'an object against an array', desired: {}, observed: [], expected: false },
    { name: 'an object against null', desired: {}, observed: null, expected: false },
    { name: 'equal arrays', desired: [1, 2], observed: [1, 2], expected: true },
    { name: 'arrays in another order', desired: [1, 2], observed: [2, 1], expected: false },
    { name: 'a longer observed array', desired: [1], observed: [1, 2], expected: false },
    { name: 'a shorter observed array', desired: [1, 2], observed: [1], expected: false },
    {
      name: 'array elements may carry defaults',
      desired: [{ port: 80 }],
      observed: [{ port: 80, protocol: 'TCP' }],
      expected: true,
    },
    { name: 'an array against an object', desired: [], observed: {}, expected: false },
  ];
  it.each(cases)('$name -> $expected', ({ desired, observed, expected }) => {
    expect(isSubset(desired, observed)).toBe(expected);
  });
});

/** The host's copy as the server keeps it: its own metadata around the engine's content. */
function asStored(object: KubeObject): KubeObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      uid: 'host-uid',
      resourceVersion: '42',
      creationTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['example.com/keep'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o' }],
      managedFields: [{ manager: 'tenantplane', operation: 'Update' }],
    },
    status: { observed: true },
  };
}

/** What differs and the update body, as the write path builds them. */
function updateBody(desired: KubeObject, observed: KubeObject) {
  const drift = driftOf(desired, observed);
  return {
    body: bodyFor(desired, observed, drift, writeTraits(desired).hostOwned),
    changed: drift.changed,
  };
}

describe('driftOf and bodyFor: the update body', () => {
  it('an unchanged copy changes nothing', () => {
    const desired = hostCopyOf(cm('default', 'app'));
    expect(updateBody(desired, asStored(desired)).changed).toEqual([]);
  });

  const cases: Array<{
    name: string;
    desired: KubeObject;
    observed: KubeObject;
    expectedChanged: string[];
  }> = [
    {
      name: 'other data',
      desired: hostCopyOf(cm('default', 'app', { k: 'new' })),
      observed: asStored(hostCopyOf(cm('default', 'app', { k: 'old' }))),
      expectedChanged: ['data'],
    },
    {
      name: 'a field only the host has',
      desired: hostCopyOf(cm('default', 'app')),
      observed: { ...asStored(hostCopyOf(cm('default', 'app'))), immutable: true },
      expectedChanged: ['immutable'],
    },
    {
      name: 'a tenant label added',
      desired: hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { tier: 'a' } })),
      observed: asStored(hostCopyOf(cm('default', 'app'))),
      expectedChanged: ['labels', 'annotations'],
    },
    {
      name: 'a tenant annotation value changed',
      desired: hostCopyOf(cm('default', 'app', { k: 'v' }, { annotations: { note: 'b' } })),
      observed: asStored(
        hostCopyOf(cm('default', 'app', { k: 'v' }, { annotations: { note: 'a' } })),
      ),
      expectedChanged: ['annotations'],
    },
    {
      name: 'a spec field the tenant removed (seen through the spec hash)',
      desired: hostCopyOf({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { namespace: 'default', name: 'w' },
        spec: { size: 1 },
      }),
      observed: asStored(
        hostCopyOf({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { namespace: 'default', name: 'w' },
          spec: { size: 1, color: 'red' },
        }),
      ),
      expectedChanged: ['annotations'],
    },
    {
      name: 'several fields, sorted',
      desired: { ...hostCopyOf(cm('default', 'app', { k: 'new' })), binaryData: { b: 'AA==' } },
      observed: asStored(hostCopyOf(cm('default', 'app', { k: 'old' }))),
      expectedChanged: ['binaryData', 'data'],
    },
  ];
  it.each(cases)('$name -> changed $expectedChanged', ({ desired, observed, expectedChanged }) => {
    expect(updateBody(desired, observed).changed).toEqual(expectedChanged);
  });

  it('server defaults inside spec are not drift', () => {
    const tenant: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'default', name: 'web' },
      spec: { ports: [{ port: 80 }], selector: { app: 'web' } },
    };
    const desired = hostCopyOf(tenant);
    const observed = asStored(desired);
    observed.spec = {
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      selector: { app: 'web' },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    };
    expect(updateBody(desired, observed).changed).toEqual([]);
  });

  it('status is the host’s and never drift', () => {
    const desired = hostCopyOf(cm('default', 'app'));
    const observed = { ...asStored(desired), status: { phase: 'anything' } };
    const { body, changed } = updateBody(desired, observed);
    expect(changed).toEqual([]);
    expect(body).not.toHaveProperty('status');
  });

  it('keeps the host’s metadata and leaves out managedFields', () => {
    const desired = hostCopyOf(cm('default', 'app', { k: 'new' }));
    const observed = asStored(hostCopyOf(cm('default', 'app', { k: 'old' })));
    const { body } = updateBody(desired, observed);
    expect(body.metadata).toMatchObject({
      name: 'app-x-default-x-dev',
      namespace: HOST_NS,
      uid: 'host-uid',
      resourceVersion: '42',
      creationTimestamp: '2025-01-01T00:00:00Z',
      finalizers: ['example.com/keep'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'o' }],
    });
    expect('managedFields' in body.metadata).toBe(false);
    expect(body.data).toEqual({ k: 'new' });
    // The observed object is not touched.
    expect(observed.metadata.managedFields).toEqual([
      { manager: 'tenantplane', operation: 'Update' },
    ]);
    expect(observed.data).toEqual({ k: 'old' });
  });

  it('keeps host-added keys, drops keys the tenant removed', () => {
    const observed = asStored(
      hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { gone: '1', kept: '1' } })),
    );
    observed.metadata.labels = { ...observed.metadata.labels, 'host.example.com/added': 'yes' };
    const desired = hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { kept: '1' } }));
    const { body } = updateBody(desired, observed);
    expect(body.metadata.labels).toEqual({
      kept: '1',
      'host.example.com/added': 'yes',
      [Labels.ManagedBy]: 'tenantplane',
      [Labels.Tenant]: 'dev',
      [Labels.VirtualNamespace]: 'default',
      [Labels.Kind]: 'ConfigMap',
    });
    expect(body.metadata.annotations?.[Annotations.OwnedKeys]).toBe(
      '{"labels":["kept"],"annotations":[]}',
    );
  });

  it('reads each copy’s own owned-keys record, however many copies share one', () => {
    // The parsed owned-keys records are remembered by their text: copies with other texts, and
    // copies with the same text, each decide from their own.
    const desired = hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { kept: '1' } }));
    const withOwned = (labels: string[]) => {
      const observed = asStored(
        hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { kept: '1', old: '1' } })),
      );
      const annotations = { ...observed.metadata.annotations };
      annotations[Annotations.OwnedKeys] = JSON.stringify({ labels, annotations: [] });
      return { ...observed, metadata: { ...observed.metadata, annotations } };
    };
    for (let round = 0; round < 2; round++) {
      // `old` was the tenant's: it goes. Not the tenant's: a host controller's, it stays.
      expect(updateBody(desired, withOwned(['kept', 'old'])).body.metadata.labels?.old).toBe(
        undefined,
      );
      expect(updateBody(desired, withOwned(['kept'])).body.metadata.labels?.old).toBe('1');
    }
  });

  it('tells what differs without building a body; the body follows from it', () => {
    const desired = hostCopyOf(cm('default', 'app', { k: 'new' }, { labels: { a: '1' } }));
    const observed = asStored(hostCopyOf(cm('default', 'app', { k: 'old' })));
    const drift = driftOf(desired, observed);
    expect(drift.changed).toEqual(['labels', 'annotations', 'data']);
    expect(bodyFor(desired, observed, drift)).toEqual(updateBody(desired, observed).body);
    expect(driftOf(desired, asStored(desired)).changed).toEqual([]);
  });

  it('carries host-owned Service fields over from the host’s copy', () => {
    const tenant: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'default', name: 'web' },
      spec: {
        type: 'NodePort',
        clusterIP: '10.0.0.1',
        ports: [{ port: 80, protocol: 'TCP', nodePort: 31000 }],
        selector: { app: 'web2' },
      },
    };
    const desired = hostCopyOf(tenant);
    const observed = asStored(hostCopyOf(tenant));
    observed.spec = {
      type: 'NodePort',
      clusterIP: '10.96.0.7',
      clusterIPs: ['10.96.0.7'],
      ipFamilies: ['IPv4'],
      ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }],
      selector: { app: 'web' },
    };
    const { body, changed } = updateBody(desired, observed);
    expect(changed).toEqual(['spec']);
    expect(body.spec).toEqual({
      type: 'NodePort',
      clusterIP: '10.96.0.7',
      clusterIPs: ['10.96.0.7'],
      ipFamilies: ['IPv4'],
      ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }],
      selector: { app: 'web2' },
    });
  });

  it('names fields, never values', () => {
    const tenant = { ...secret('default', 'db'), data: { password: 'bmV3LXNlY3JldA==' } };
    const observed = asStored(hostCopyOf({ ...tenant, data: { password: 'b2xkLXNlY3JldA==' } }));
    const { changed } = updateBody(hostCopyOf(tenant), observed);
    expect(changed).toEqual(['data']);
  });

  it('never shares the desired object’s content with the body', () => {
    const desired = hostCopyOf(cm('default', 'app', { k: 'new' }));
    const { body } = updateBody(desired, asStored(hostCopyOf(cm('default', 'app'))));
    (body.data as Record<string, string>).k = 'mutated';
    expect(desired.data).toEqual({ k: 'new' });
  });
});
