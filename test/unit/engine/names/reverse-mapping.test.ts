/**
 * Reverse mapping: from a host object back to its tenant source, read from the metadata the
 * engine wrote, never from the host name (which may be hashed).
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { hostName, Labels, reverseLookup } from '../../../../lib/engine/index.js';
import { Annotations } from '../../../../lib/engine/names/metadata.js';
import {
  isOurCopy,
  ourCopySource,
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../../lib/engine/names/reverse-mapping.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { cm, HOST_NS, TENANT } from '../support.js';

const TARGET = { tenant: TENANT, hostNamespace: HOST_NS };

describe('reverseMappingLabels and reverseMappingAnnotations', () => {
  it('label the tenant, kind and virtual namespace', () => {
    expect(reverseMappingLabels('dev', 'Secret', 'team-a')).toEqual({
      'app.kubernetes.io/managed-by': 'tenantplane',
      'tenantplane.io/tenant': 'dev',
      'tenantplane.io/virtual-namespace': 'team-a',
      'tenantplane.io/kind': 'Secret',
    });
  });

  it.each<{ name: string; uid: string | undefined; expected: Record<string, string> }>([
    {
      name: 'with a uid',
      uid: 'u-1',
      expected: {
        'tenantplane.io/virtual-namespace': 'team-a',
        'tenantplane.io/virtual-name': 'db',
        'tenantplane.io/virtual-uid': 'u-1',
      },
    },
    {
      name: 'without a uid',
      uid: undefined,
      expected: {
        'tenantplane.io/virtual-namespace': 'team-a',
        'tenantplane.io/virtual-name': 'db',
      },
    },
    {
      name: 'with an empty uid',
      uid: '',
      expected: {
        'tenantplane.io/virtual-namespace': 'team-a',
        'tenantplane.io/virtual-name': 'db',
      },
    },
  ])('annotate the verbatim names $name', ({ uid, expected }) => {
    expect(reverseMappingAnnotations('team-a', 'db', uid)).toEqual(expected);
  });
});

describe('reverseLookup', () => {
  it('round-trips toHostObject', () => {
    const host = toHostObject(cm('team-a', 'settings'), TARGET);
    expect(reverseLookup(host)).toEqual({
      tenant: TENANT,
      kind: 'ConfigMap',
      virtualNamespace: 'team-a',
      virtualName: 'settings',
      virtualUid: 'uid-team-a-settings',
    });
  });

  it('has no virtualUid for a source without a uid', () => {
    const source: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'a', name: 'b' },
    };
    const ref = reverseLookup(toHostObject(source, TARGET));
    expect(ref).toEqual({
      tenant: TENANT,
      kind: 'ConfigMap',
      virtualNamespace: 'a',
      virtualName: 'b',
    });
    expect(ref).not.toHaveProperty('virtualUid');
  });

  it('reads the metadata, not the host name', () => {
    const host = toHostObject(cm('team-a', 'settings'), TARGET);
    host.metadata.name = 'renamed-by-someone';
    expect(reverseLookup(host)).toMatchObject({
      virtualNamespace: 'team-a',
      virtualName: 'settings',
    });
  });

  const complete = toHostObject(cm('default', 'app'), TARGET);
  const without = (part: 'labels' | 'annotations', key: string, value?: string): KubeObject => {
    const copy = structuredClone(complete);
    const map = copy.metadata[part] as Record<string, string>;
    if (value === undefined) delete map[key];
    else map[key] = value;
    return copy;
  };
  const cases: Array<{ name: string; hostObject: KubeObject }> = [
    { name: 'no managed-by label', hostObject: without('labels', Labels.ManagedBy) },
    { name: 'managed by another tool', hostObject: without('labels', Labels.ManagedBy, 'helm') },
    { name: 'no tenant label', hostObject: without('labels', Labels.Tenant) },
    { name: 'an empty tenant label', hostObject: without('labels', Labels.Tenant, '') },
    { name: 'no kind label', hostObject: without('labels', Labels.Kind) },
    {
      name: 'no virtual-namespace annotation',
      hostObject: without('annotations', Annotations.VirtualNamespace),
    },
    {
      name: 'no virtual-name annotation',
      hostObject: without('annotations', Annotations.VirtualName),
    },
    {
      name: 'an empty virtual-name annotation',
      hostObject: without('annotations', Annotations.VirtualName, ''),
    },
    {
      name: 'no labels at all',
      hostObject: { ...complete, metadata: { ...complete.metadata, labels: undefined } },
    },
    {
      name: 'no annotations at all',
      hostObject: { ...complete, metadata: { ...complete.metadata, annotations: undefined } },
    },
    {
      name: 'a bare object',
      hostObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
    },
  ];
  it.each(cases)('is undefined with incomplete metadata: $name', ({ hostObject }) => {
    expect(reverseLookup(hostObject)).toBeUndefined();
  });

  it('the virtual-namespace label is not needed (the annotation is verbatim)', () => {
    expect(reverseLookup(without('labels', Labels.VirtualNamespace))).toMatchObject({
      virtualNamespace: 'default',
    });
  });

  it('gives back the verbatim namespace and name for any source, hashed host names included', () => {
    const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    // Names up to 253 characters, with '-x-' and '.' fragments that force the hashed form.
    const objectName = fc
      .array(fc.oneof(dnsLabel, fc.constantFrom('-x-', '.', 'x', '-')), {
        minLength: 1,
        maxLength: 12,
      })
      .map((parts) => parts.join('').slice(0, 253))
      .filter((name) => name.length > 0);
    let hashed = 0;
    fc.assert(
      fc.property(
        dnsLabel,
        objectName,
        dnsLabel,
        fc.option(fc.uuid(), { nil: undefined }),
        (namespace, name, tenant, uid) => {
          const source: KubeObject = {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { namespace, name, ...(uid ? { uid } : {}) },
            data: { k: 'v' },
          };
          const host = toHostObject(source, { tenant, hostNamespace: HOST_NS });
          expect(host.metadata.name).toBe(hostName(name, namespace, tenant));
          if (host.metadata.name !== `${name}-x-${namespace}-x-${tenant}`) hashed += 1;
          expect(reverseLookup(host)).toEqual({
            tenant,
            kind: 'ConfigMap',
            virtualNamespace: namespace,
            virtualName: name,
            ...(uid ? { virtualUid: uid } : {}),
          });
        },
      ),
      { numRuns: 500 },
    );
    // The property covered hashed host names, not only plain ones.
    expect(hashed).toBeGreaterThan(50);
  });
});

describe('ourCopySource: is this our copy', () => {
  const copy = toHostObject(cm('team-a', 'db'), TARGET);
  const owner = { tenant: TENANT, kind: 'ConfigMap' };

  it('is the source of a copy this tenant made of this Kind', () => {
    expect(ourCopySource(copy, owner)).toEqual({
      tenant: TENANT,
      kind: 'ConfigMap',
      virtualNamespace: 'team-a',
      virtualName: 'db',
      virtualUid: 'uid-team-a-db',
    });
    expect(isOurCopy(copy, owner)).toBe(true);
  });

  it.each<{ name: string; object: KubeObject; owner: { tenant: string; kind: string } }>([
    { name: "another tenant's copy", object: copy, owner: { tenant: 'prod', kind: 'ConfigMap' } },
    { name: 'a copy of another Kind', object: copy, owner: { tenant: TENANT, kind: 'Secret' } },
    {
      name: 'a foreign object',
      object: { ...cm('team-a', 'db'), metadata: { namespace: HOST_NS, name: 'db' } },
      owner,
    },
    {
      name: 'a copy whose reverse mapping is incomplete',
      object: {
        ...copy,
        metadata: { ...copy.metadata, annotations: {} },
      },
      owner,
    },
  ])('is nothing for $name', ({ object, owner: whose }) => {
    expect(ourCopySource(object, whose)).toBeUndefined();
    expect(isOurCopy(object, whose)).toBe(false);
  });
});
