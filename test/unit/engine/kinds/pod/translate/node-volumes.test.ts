/**
 * Volumes the node mounts from its own position: every volume type but those Pod Security's
 * restricted level allows (and hostPath, which is host access) refuses the Pod, naming the field,
 * unless the policy allows host access; at the baseline level too, which does not forbid them.
 */
import { describe, expect, it } from '@jest/globals';
import {
  inlineCsiRefusal,
  nodeMountedVolumes,
  nodeVolumeRefusal,
  TENANT_VOLUME_TYPES,
} from '../../../../../../lib/engine/kinds/pod/translate/node-volumes.js';
import { translate } from '../../../../../../lib/engine/kinds/registry.js';
import { isolationOf, type WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

/** Every inline volume type of core/v1 VolumeSource (k8s.io/api v0.36) the node mounts itself. */
const NODE_MOUNTED: Record<string, unknown> = {
  nfs: { server: '10.0.0.5', path: '/exports/other-tenant' },
  awsElasticBlockStore: { volumeID: 'vol-0123456789abcdef0' },
  gcePersistentDisk: { pdName: 'operator-disk' },
  azureDisk: { diskName: 'd', diskURI: '/subscriptions/x/disks/d' },
  azureFile: { secretName: 's', shareName: 'share' },
  iscsi: { targetPortal: '10.0.0.6:3260', iqn: 'iqn.2001-04.com.example:disk', lun: 0 },
  rbd: { monitors: ['10.0.0.7:6789'], image: 'img' },
  cephfs: { monitors: ['10.0.0.7:6789'] },
  glusterfs: { endpoints: 'gluster', path: 'vol' },
  fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 },
  flexVolume: { driver: 'example.com/driver' },
  cinder: { volumeID: 'v-1' },
  flocker: { datasetName: 'ds' },
  photonPersistentDisk: { pdID: 'p' },
  portworxVolume: { volumeID: 'px' },
  quobyte: { registry: 'r:7861', volume: 'v' },
  scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'sio' } },
  storageos: { volumeName: 'v' },
  vsphereVolume: { volumePath: '[ds] disk.vmdk' },
  gitRepo: { repository: 'https://example.com/repo.git' },
};

const ALLOWED: Record<string, unknown> = {
  configMap: { name: 'cfg' },
  csi: { driver: 'secrets-store.csi.k8s.io' },
  downwardAPI: { items: [] },
  emptyDir: {},
  ephemeral: { volumeClaimTemplate: { spec: {} } },
  image: { reference: 'example.com/data:1' },
  persistentVolumeClaim: { claimName: 'data' },
  projected: { sources: [] },
  secret: { secretName: 's' },
};

const spec = (volumes: Record<string, unknown>[]) => ({
  containers: [{ name: 'web', image: 'nginx:1' }],
  volumes,
});

describe('nodeMountedVolumes', () => {
  it.each(Object.entries(NODE_MOUNTED))('%s: named by its field', (type, source) => {
    expect(nodeMountedVolumes(spec([{ name: 'data', [type]: source }]))).toEqual([
      `spec.volumes[data].${type}`,
    ]);
  });

  it.each(Object.entries(ALLOWED))('%s: a tenant volume, never the node’s', (type, source) => {
    expect(nodeMountedVolumes(spec([{ name: 'v', [type]: source }]))).toEqual([]);
  });

  it('the allowed types are those of Pod Security’s restricted level, exactly', () => {
    expect([...TENANT_VOLUME_TYPES].sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  const cases = [
    { name: 'no spec', value: undefined, expected: [] },
    { name: 'no volumes', value: { containers: [] }, expected: [] },
    {
      name: 'hostPath: host access, refused in its own words',
      value: spec([{ name: 'h', hostPath: { path: '/' } }]),
      expected: [],
    },
    {
      name: 'a type the engine does not know (a later Kubernetes): refused',
      value: spec([{ name: 'n', newType: {} }]),
      expected: ['spec.volumes[n].newType'],
    },
    {
      name: 'a null member is no source',
      value: spec([{ name: 'n', nfs: null, emptyDir: {} }]),
      expected: [],
    },
    {
      name: 'several, in order',
      value: spec([
        { name: 'a', nfs: NODE_MOUNTED.nfs },
        { name: 'b', emptyDir: {} },
        { name: 'c', gitRepo: NODE_MOUNTED.gitRepo },
      ]),
      expected: ['spec.volumes[a].nfs', 'spec.volumes[c].gitRepo'],
    },
  ];
  it.each(cases)('$name', ({ value, expected }) => {
    expect(nodeMountedVolumes(value)).toEqual(expected);
  });
});

describe('nodeVolumeRefusal', () => {
  const nfs = spec([{ name: 'data', nfs: NODE_MOUNTED.nfs }]);
  const cases: Array<{ name: string; policy?: WorkloadPolicy; refused: boolean }> = [
    { name: 'no policy: refused', refused: true },
    { name: 'the baseline level (the default): refused', policy: {}, refused: true },
    { name: 'host access allowed: kept', policy: { allowHostAccess: true }, refused: false },
    {
      name: 'host access explicitly not allowed: refused',
      policy: { allowHostAccess: false },
      refused: true,
    },
  ];
  it.each(cases)('$name', ({ policy, refused }) => {
    const reason = nodeVolumeRefusal(nfs, policy);
    if (!refused) expect(reason).toBeUndefined();
    else {
      expect(reason).toContain('(spec.volumes[data].nfs)');
      expect(reason).toContain('spec.workloads.allowHostAccess');
    }
  });

  it('the translator refuses the Pod with that reason', () => {
    const pod = tenantObject('v1', 'Pod', {
      spec: { ...nfs, automountServiceAccountToken: false },
    });
    expect(translate(pod, { tenant: TENANT, hostNamespace: HOST_NAMESPACE })).toEqual({
      refused:
        "the Pod has a volume the host's node would mount or attach from its own network position or cloud identity (spec.volumes[data].nfs), which the policy does not allow (spec.workloads.allowHostAccess); use a PersistentVolumeClaim, whose host copy gets a volume of the host's storage classes",
    });
  });
});

describe('inlineCsiRefusal', () => {
  const csi = spec([
    { name: 'secrets', csi: { driver: 'secrets-store.csi.k8s.io' } },
    { name: 'scratch', emptyDir: {} },
    { name: 'files', csi: { driver: 'efs.csi.aws.com' } },
  ]);
  const volumes = (csiDrivers: string[]): WorkloadPolicy => ({
    isolation: { ...isolationOf(undefined), volumes: { csiDrivers } },
  });
  const cases: Array<{ name: string; policy?: WorkloadPolicy; says?: string }> = [
    {
      name: 'no policy: every driver refused, each named',
      says: 'spec.volumes[secrets].csi: driver "secrets-store.csi.k8s.io", spec.volumes[files].csi: driver "efs.csi.aws.com"',
    },
    {
      name: 'one driver listed: the other is refused',
      policy: volumes(['efs.csi.aws.com']),
      says: '(spec.volumes[secrets].csi: driver "secrets-store.csi.k8s.io") that the host\'s node would mount with the driver\'s own identity, a driver the policy does not allow (spec.workloads.volumes.csiDrivers: efs.csi.aws.com)',
    },
    { name: 'both listed: kept', policy: volumes(['efs.csi.aws.com', 'secrets-store.csi.k8s.io']) },
    { name: 'host access allowed: kept', policy: { allowHostAccess: true } },
  ];
  it.each(cases)('$name', ({ policy, says }) => {
    const reason = inlineCsiRefusal(csi, policy);
    if (says === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(says);
  });

  it('a volume without a driver is refused too, and a Pod without CSI volumes is not', () => {
    expect(inlineCsiRefusal(spec([{ name: 'x', csi: {} }]), {})).toContain(
      'spec.volumes[x].csi: driver ""',
    );
    expect(inlineCsiRefusal(spec([{ name: 'x', emptyDir: {} }]), {})).toBeUndefined();
    expect(inlineCsiRefusal(undefined, {})).toBeUndefined();
  });

  it('the translator refuses the Pod, saying which knob allows the driver', () => {
    const pod = tenantObject('v1', 'Pod', {
      spec: {
        ...spec([{ name: 'secrets', csi: { driver: 'secrets-store.csi.k8s.io' } }]),
        automountServiceAccountToken: false,
      },
    });
    expect(translate(pod, { tenant: TENANT, hostNamespace: HOST_NAMESPACE })).toEqual({
      refused:
        'the Pod has an inline CSI volume (spec.volumes[secrets].csi: driver "secrets-store.csi.k8s.io") that the host\'s node would mount with the driver\'s own identity, a driver the policy does not allow (spec.workloads.volumes.csiDrivers: none); use a PersistentVolumeClaim, or have the operator list the driver',
    });
    const allowed = translate(pod, {
      tenant: TENANT,
      hostNamespace: HOST_NAMESPACE,
      workloads: volumes(['secrets-store.csi.k8s.io']),
    });
    expect(allowed).toHaveProperty('host');
  });
});
