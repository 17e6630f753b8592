/** Pod specs shared by the Pod translator tests. */
import { isolationOf, type WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';

/** A policy that allows the inline CSI driver the specs below name (`x`, and `d` of the properties). */
export const CSI_ALLOWED: WorkloadPolicy = {
  isolation: { ...isolationOf(undefined), volumes: { csiDrivers: ['x', 'd'] } },
};

/** Every reference kind a Pod can make, in one spec. */
export const EVERY_REFERENCE = {
  volumes: [
    { name: 'config', configMap: { name: 'storefront' } },
    { name: 'creds', secret: { secretName: 'db', optional: true } },
    { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    {
      name: 'bundle',
      projected: { sources: [{ configMap: { name: 'extra' } }, { secret: { name: 'tls' } }] },
    },
    { name: 'csi', csi: { driver: 'x', nodePublishSecretRef: { name: 'csi-creds' } } },
  ],
  initContainers: [
    { name: 'init', image: 'busybox', envFrom: [{ secretRef: { name: 'init-env' } }] },
  ],
  containers: [
    {
      name: 'web',
      image: 'nginx:1',
      env: [
        { name: 'A', valueFrom: { configMapKeyRef: { name: 'storefront', key: 'a' } } },
        { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'b', optional: true } } },
      ],
      envFrom: [{ configMapRef: { name: 'storefront' } }],
    },
  ],
  imagePullSecrets: [{ name: 'registry' }],
};
