/**
 * The Pod reference walk: the Secret references of volume types other than CSI, renamed and listed.
 * Those volume types are mounted by the node from its own position, so they reach the host only
 * when the policy allows host access (`node-volumes.test.ts`): the translation here allows it.
 */
import { describe, expect, it } from '@jest/globals';
import { SECRET_REF_VOLUMES } from '../../../../../../lib/engine/kinds/pod/translate/references.js';
import { referencesOf, translate } from '../../../../../../lib/engine/kinds/registry.js';
import { hostName } from '../../../../../../lib/engine/names/naming.js';
import type { KubeObject } from '../../../../../../lib/ports/index.js';
import { HOST_NAMESPACE, TENANT, tenantObject } from '../../support.js';

const pod = (volume: Record<string, unknown>): KubeObject =>
  tenantObject('v1', 'Pod', {
    spec: {
      automountServiceAccountToken: false,
      containers: [{ name: 'web', image: 'nginx:1' }],
      volumes: [{ name: 'vol', ...volume }],
    },
  });
/** The host Pod, under a policy that allows host access. */
function hostOf(source: KubeObject): KubeObject {
  const workloads = { allowHostAccess: true };
  const result = translate(source, { tenant: TENANT, hostNamespace: HOST_NAMESPACE, workloads });
  if (!('host' in result)) throw new Error(`refused: ${result.refused}`);
  return result.host;
}
const volumeOf = (object: KubeObject) =>
  (object.spec as { volumes: Record<string, unknown>[] }).volumes[0];

describe('Pod references: Secret references of other volume types', () => {
  const cases = [
    {
      type: 'azureFile',
      secret: 'azure',
      tenantVolume: { azureFile: { secretName: 'azure', shareName: 's' } },
      expectedHostVolume: {
        azureFile: { secretName: hostName('azure', 'shop', TENANT), shareName: 's' },
      },
      path: 'spec.volumes[vol].azureFile',
    },
    {
      type: 'cephfs',
      secret: 'ceph',
      tenantVolume: { cephfs: { monitors: ['m:6789'], secretRef: { name: 'ceph' } } },
      expectedHostVolume: {
        cephfs: { monitors: ['m:6789'], secretRef: { name: hostName('ceph', 'shop', TENANT) } },
      },
      path: 'spec.volumes[vol].cephfs.secretRef',
    },
    {
      type: 'cinder',
      secret: 'openstack',
      tenantVolume: { cinder: { volumeID: 'v-1', secretRef: { name: 'openstack' } } },
      expectedHostVolume: {
        cinder: { volumeID: 'v-1', secretRef: { name: hostName('openstack', 'shop', TENANT) } },
      },
      path: 'spec.volumes[vol].cinder.secretRef',
    },
    {
      type: 'rbd',
      secret: 'rbd',
      tenantVolume: { rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd' } } },
      expectedHostVolume: {
        rbd: { monitors: ['m'], image: 'i', secretRef: { name: hostName('rbd', 'shop', TENANT) } },
      },
      path: 'spec.volumes[vol].rbd.secretRef',
    },
    {
      type: 'flexVolume',
      secret: 'flex',
      tenantVolume: { flexVolume: { driver: 'x/y', secretRef: { name: 'flex' } } },
      expectedHostVolume: {
        flexVolume: { driver: 'x/y', secretRef: { name: hostName('flex', 'shop', TENANT) } },
      },
      path: 'spec.volumes[vol].flexVolume.secretRef',
    },
    {
      type: 'iscsi',
      secret: 'chap',
      tenantVolume: { iscsi: { targetPortal: 't', iqn: 'q', lun: 0, secretRef: { name: 'chap' } } },
      expectedHostVolume: {
        iscsi: {
          targetPortal: 't',
          iqn: 'q',
          lun: 0,
          secretRef: { name: hostName('chap', 'shop', TENANT) },
        },
      },
      path: 'spec.volumes[vol].iscsi.secretRef',
    },
    {
      type: 'scaleIO',
      secret: 'sio',
      tenantVolume: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'sio' } } },
      expectedHostVolume: {
        scaleIO: {
          gateway: 'g',
          system: 's',
          secretRef: { name: hostName('sio', 'shop', TENANT) },
        },
      },
      path: 'spec.volumes[vol].scaleIO.secretRef',
    },
    {
      type: 'storageos',
      secret: 'sos',
      tenantVolume: { storageos: { volumeName: 'v', secretRef: { name: 'sos' } } },
      expectedHostVolume: {
        storageos: { volumeName: 'v', secretRef: { name: hostName('sos', 'shop', TENANT) } },
      },
      path: 'spec.volumes[vol].storageos.secretRef',
    },
  ];

  it.each(cases)('$type: the Secret is its host copy', ({ tenantVolume, expectedHostVolume }) => {
    expect(volumeOf(hostOf(pod(tenantVolume)))).toEqual({ name: 'vol', ...expectedHostVolume });
  });

  it.each(cases)('$type: the Secret is a required reference', ({ tenantVolume, secret, path }) => {
    expect(referencesOf(pod(tenantVolume))).toEqual([
      { apiVersion: 'v1', kind: 'Secret', name: secret, path, optional: false },
    ]);
  });

  it('the table covers every volume type whose Secret the walk renames', () => {
    expect(cases.map((c) => c.type).sort()).toEqual(['azureFile', ...SECRET_REF_VOLUMES].sort());
  });
});
