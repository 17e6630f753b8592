/** Provenance: who holds a host name, relative to the tenant source that wants it. */
import { describe, expect, it } from '@jest/globals';
import { Labels } from '../../../../lib/engine/index.js';
import {
  describeOccupant,
  type Provenance,
  provenance,
} from '../../../../lib/engine/names/provenance.js';
import type { TenantSource as SourceIdentity } from '../../../../lib/engine/names/reverse-mapping.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, cm, HOST_NS, hostCopyOf, secret, TENANT } from '../support.js';

const SOURCE: SourceIdentity = {
  tenant: TENANT,
  kind: 'ConfigMap',
  virtualNamespace: 'default',
  virtualName: 'app',
};

function withLabels(object: KubeObject, labels: Record<string, string>): KubeObject {
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...object.metadata.labels, ...labels } },
  };
}

describe('provenance', () => {
  const cases: Array<{ name: string; hostObject: KubeObject; expected: Provenance }> = [
    {
      name: 'this source’s copy',
      hostObject: hostCopyOf(cm('default', 'app')),
      expected: { holder: 'same-source' },
    },
    {
      name: 'this source’s copy with other content (still the same source)',
      hostObject: hostCopyOf(cm('default', 'app', { k: 'other' })),
      expected: { holder: 'same-source' },
    },
    {
      name: 'the same source under a hashed name',
      hostObject: {
        ...hostCopyOf(cm('default', 'app')),
        metadata: { ...hostCopyOf(cm('default', 'app')).metadata, name: 'whatever-0123456789' },
      },
      expected: { holder: 'same-source' },
    },
    {
      name: 'another tenant’s copy of the same names',
      hostObject: hostCopyOf(cm('default', 'app'), 'prod'),
      expected: {
        holder: 'other-source',
        ref: {
          tenant: 'prod',
          kind: 'ConfigMap',
          virtualNamespace: 'default',
          virtualName: 'app',
          virtualUid: 'uid-default-app',
        },
      },
    },
    {
      name: 'a copy from another namespace',
      hostObject: hostCopyOf(cm('team', 'app')),
      expected: {
        holder: 'other-source',
        ref: {
          tenant: TENANT,
          kind: 'ConfigMap',
          virtualNamespace: 'team',
          virtualName: 'app',
          virtualUid: 'uid-team-app',
        },
      },
    },
    {
      name: 'a copy of another name',
      hostObject: hostCopyOf(cm('default', 'other')),
      expected: {
        holder: 'other-source',
        ref: {
          tenant: TENANT,
          kind: 'ConfigMap',
          virtualNamespace: 'default',
          virtualName: 'other',
          virtualUid: 'uid-default-other',
        },
      },
    },
    {
      name: 'a copy of another kind',
      hostObject: hostCopyOf(secret('default', 'app')),
      expected: {
        holder: 'other-source',
        ref: {
          tenant: TENANT,
          kind: 'Secret',
          virtualNamespace: 'default',
          virtualName: 'app',
          virtualUid: 'uid-default-app',
        },
      },
    },
    {
      name: 'an object without any tenantplane metadata',
      hostObject: { ...CONFIGMAP, metadata: { namespace: HOST_NS, name: 'app-x-default-x-dev' } },
      expected: { holder: 'foreign' },
    },
    {
      name: 'a copy whose managed-by label another tool took over',
      hostObject: withLabels(hostCopyOf(cm('default', 'app')), { [Labels.ManagedBy]: 'helm' }),
      expected: { holder: 'foreign' },
    },
    {
      name: 'a copy with incomplete metadata (no tenant label)',
      hostObject: withLabels(hostCopyOf(cm('default', 'app')), { [Labels.Tenant]: '' }),
      expected: { holder: 'foreign' },
    },
  ];
  it.each(cases)('$name -> $expected.holder', ({ hostObject, expected }) => {
    expect(provenance(hostObject, SOURCE)).toEqual(expected);
  });

  it('a virtual uid that differs does not make another source (a recreated tenant object)', () => {
    const recreated = hostCopyOf(cm('default', 'app', { k: 'v' }, { uid: 'a-new-uid' }));
    expect(provenance(recreated, SOURCE)).toEqual({ holder: 'same-source' });
  });
});

describe('describeOccupant', () => {
  const cases: Array<{ name: string; provenance: Provenance; expected: string }> = [
    {
      name: 'same source',
      provenance: { holder: 'same-source' },
      expected: 'this same tenant source',
    },
    {
      name: 'another source of this tenant',
      provenance: {
        holder: 'other-source',
        ref: { tenant: 'dev', kind: 'Secret', virtualNamespace: 'team', virtualName: 'db' },
      },
      expected: 'Secret team/db of tenant cluster "dev" (a name collision)',
    },
    {
      name: "another tenant's copy: named as such, never by its tenant, namespace or name",
      provenance: {
        holder: 'other-source',
        ref: { tenant: 'prod', kind: 'Secret', virtualNamespace: 'team', virtualName: 'db' },
      },
      expected: 'an object of another tenant (a name collision)',
    },
    {
      name: 'foreign',
      provenance: { holder: 'foreign' },
      expected: 'an object tenantplane does not manage (a foreign object)',
    },
  ];
  it.each(cases)('$name', ({ provenance: p, expected }) => {
    expect(describeOccupant(p, { tenant: 'dev' })).toBe(expected);
  });
});
