/**
 * Every field of a Pod volume (`io.k8s.api.core.v1.Volume`: its name and one source) and of a
 * projected volume's source (`VolumeProjection`), Kubernetes 1.37, and what the engine does with
 * it on purpose (`field-table.ts`). The sources Pod Security's restricted level allows name only
 * tenant objects or nothing on the node; every other one is mounted by the host's node from its
 * own position (`../translate/node-volumes.ts`). Projected sources that name cluster-scoped host
 * objects (a trust bundle, a certificate signer) are the policy's to hand out
 * (`../translate/trust.ts`).
 */
import { checked, copied, type FieldTable, translated } from './field-table.js';

const NODE = 'refused unless spec.workloads.allowHostAccess: the node mounts it from its position';

/** Volume fields: the name and every source. */
export const VOLUME_FIELDS = {
  name: copied(),
  awsElasticBlockStore: checked(NODE),
  azureDisk: checked(NODE),
  azureFile: checked(`${NODE}; its Secret renamed`),
  cephfs: checked(`${NODE}; its Secret renamed`),
  cinder: checked(`${NODE}; its Secret renamed`),
  configMap: translated('renamed to the host copy of the ConfigMap'),
  csi: checked('drivers in spec.workloads.volumes.csiDrivers only; its Secret renamed'),
  downwardAPI: translated('fields read the tenant Pod’s values'),
  emptyDir: copied(),
  ephemeral: translated('a claim volume of the host copy of the claim the tenant made'),
  fc: checked(NODE),
  flexVolume: checked(`${NODE}; its Secret renamed`),
  flocker: checked(NODE),
  gcePersistentDisk: checked(NODE),
  gitRepo: checked(NODE),
  glusterfs: checked(NODE),
  hostPath: checked('refused unless spec.workloads.allowHostAccess (host access)'),
  image: copied('an OCI image as a volume, pulled like a container image'),
  iscsi: checked(`${NODE}; its Secret renamed`),
  nfs: checked(NODE),
  persistentVolumeClaim: translated('renamed to the host copy of the claim'),
  photonPersistentDisk: checked(NODE),
  portworxVolume: checked(NODE),
  projected: translated('each source by the VolumeProjection table'),
  quobyte: checked(NODE),
  rbd: checked(`${NODE}; its Secret renamed`),
  scaleIO: checked(`${NODE}; its Secret renamed`),
  secret: translated('renamed to the host copy of the Secret'),
  storageos: checked(`${NODE}; its Secret renamed`),
  vsphereVolume: checked(NODE),
} as const satisfies FieldTable;

/** Projected volume source fields. */
export const VOLUME_PROJECTION_FIELDS = {
  clusterTrustBundle: checked(
    'by name only bundles in spec.workloads.pods.trustBundleNames; by signer only signers in trustBundleSigners, its selector kept off bundles marked for a tenant',
  ),
  configMap: translated('renamed to the host copy of the ConfigMap'),
  downwardAPI: translated('fields read the tenant Pod’s values'),
  podCertificate: checked('only signers in spec.workloads.pods.podCertificateSigners'),
  secret: translated('renamed to the host copy of the Secret'),
  serviceAccountToken: translated('a tenant token, served from the Pod’s token Secret'),
} as const satisfies FieldTable;
