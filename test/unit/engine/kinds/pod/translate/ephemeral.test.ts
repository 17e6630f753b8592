/**
 * Ephemeral volumes: the claim template is translated as a claim is (data sources named by their
 * host copies, a claim to clone a required reference, the storage class mapped by the policy); a
 * data source in another namespace refuses the Pod.
 */
import { describe, expect, it } from '@jest/globals';
import { referencesOf, translate } from '../../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../../lib/engine/names/naming.js';
import type { WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

type Spec = Record<string, unknown>;
const h = (name: string) => hostName(name, 'shop', TENANT);
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const CLAIM = { kind: 'PersistentVolumeClaim', name: 'golden' };
const SNAPSHOT = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' };

/** A tenant Pod with one ephemeral volume `scratch` whose claim template has `claim` as spec. */
const pod = (claim: Spec): KubeObject =>
  tenantObject('v1', 'Pod', {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
      volumes: [
        {
          name: 'scratch',
          ephemeral: {
            volumeClaimTemplate: { metadata: { labels: { app: 'web' } }, spec: claim },
          },
        },
      ],
    },
  });

function translated(claim: Spec, workloads?: WorkloadPolicy) {
  return translate(pod(claim), { tenant: TENANT, hostNamespace: HOST_NAMESPACE, workloads });
}

/** The claim template spec of the host Pod. */
function hostTemplate(claim: Spec, workloads?: WorkloadPolicy): unknown {
  const result = translated(claim, workloads);
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  const volumes = (result.host.spec as { volumes: Spec[] }).volumes;
  const ephemeral = volumes.find((v) => v.name === 'scratch')?.ephemeral as Spec;
  return (ephemeral.volumeClaimTemplate as Spec).spec;
}

describe('Pod ephemeral volumes: the claim template', () => {
  const cases: Array<{
    name: string;
    tenantClaim: Spec;
    policy?: WorkloadPolicy;
    hostClaim: Spec;
  }> = [
    { name: 'without a data source: as it is', tenantClaim: base, hostClaim: base },
    {
      name: 'a claim to clone, in dataSource and dataSourceRef: its host copy',
      tenantClaim: { ...base, dataSource: CLAIM, dataSourceRef: CLAIM },
      hostClaim: {
        ...base,
        dataSource: { ...CLAIM, name: h('golden') },
        dataSourceRef: { ...CLAIM, name: h('golden') },
      },
    },
    {
      name: 'a claim named with the core group spelled out (empty)',
      tenantClaim: { ...base, dataSourceRef: { ...CLAIM, apiGroup: '' } },
      hostClaim: { ...base, dataSourceRef: { ...CLAIM, apiGroup: '', name: h('golden') } },
    },
    {
      name: 'a source in the Pod’s own namespace: its host copy, the namespace the host’s',
      tenantClaim: { ...base, dataSourceRef: { ...CLAIM, namespace: 'shop' } },
      hostClaim: { ...base, dataSourceRef: { ...CLAIM, name: h('golden') } },
    },
    {
      name: 'a snapshot: its host copy, as a claim’s would be',
      tenantClaim: { ...base, dataSource: SNAPSHOT },
      hostClaim: { ...base, dataSource: { ...SNAPSHOT, name: h('snap') } },
    },
    {
      name: 'a mapped storage class: the host class',
      tenantClaim: { ...base, storageClassName: 'fast' },
      policy: { storageClasses: { fast: 'tenant-dev-ssd' } },
      hostClaim: { ...base, storageClassName: 'tenant-dev-ssd' },
    },
    {
      name: 'an unmapped storage class: kept',
      tenantClaim: { ...base, storageClassName: 'gold' },
      policy: { storageClasses: { fast: 'tenant-dev-ssd' } },
      hostClaim: { ...base, storageClassName: 'gold' },
    },
  ];
  it.each(cases)('$name', ({ tenantClaim, policy, hostClaim }) => {
    expect(hostTemplate(tenantClaim, policy)).toEqual(hostClaim);
  });

  it('a data source in another namespace refuses the Pod, naming the field', () => {
    const result = translated({ ...base, dataSourceRef: { ...CLAIM, namespace: 'base' } });
    expect(result).toEqual({
      refused:
        'its ephemeral volume\'s data source is in another namespace (spec.volumes[scratch].ephemeral.volumeClaimTemplate.spec.dataSourceRef: namespace "base"), which is not supported on the host: use a source in the Pod\'s namespace',
    });
  });
});

describe('Pod ephemeral volumes: references', () => {
  const at = 'spec.volumes[scratch].ephemeral.volumeClaimTemplate.spec';
  const cases = [
    { name: 'no data source: none', tenantClaim: base, expected: [] },
    {
      name: 'a claim to clone is a required reference (both fields)',
      tenantClaim: { ...base, dataSource: CLAIM, dataSourceRef: { ...CLAIM, namespace: 'shop' } },
      expected: [`golden ${at}.dataSource`, `golden ${at}.dataSourceRef`],
    },
    {
      name: 'a snapshot is not a claim',
      tenantClaim: { ...base, dataSource: SNAPSHOT },
      expected: [],
    },
    {
      name: 'a claim of another API group is not a claim',
      tenantClaim: { ...base, dataSource: { ...CLAIM, apiGroup: 'example.com' } },
      expected: [],
    },
  ];
  it.each(cases)('$name', ({ tenantClaim, expected }) => {
    const refs = referencesOf(pod(tenantClaim));
    expect(refs.map((r) => `${r.name} ${r.path}`)).toEqual(expected);
    for (const r of refs) {
      expect(r).toMatchObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', optional: false });
    }
  });
});
