/**
 * One case per row of the Pod field tables that is not a plain copy: a tenant Pod that sets the
 * field, the policy it runs under, and what the translation must show (a Skip naming the field,
 * or the host Pod's value). `field-rows.test.ts` runs them and checks that every such row has one.
 */
import { expect } from '@jest/globals';
import { isolationOf, type WorkloadPolicy } from '../../../../../../lib/engine/policy/workloads.js';

type Json = Record<string, unknown>;

/** What a case expects: a Skip whose reason names `refused`, or a check of the host Pod's spec. */
export type Expect = { refused: string } | { host: (spec: Json) => unknown; equals: unknown };

export interface RowCase {
  /** `PodSpec.hostNetwork`, `Container.env`, `Volume.nfs`... */
  row: string;
  /** Fields merged over the base Pod spec. */
  spec: Json;
  policy?: WorkloadPolicy;
  expect: Expect;
}

export const RESTRICTED: WorkloadPolicy = {
  isolation: { ...isolationOf(undefined), podSecurity: 'restricted' },
};

const web = (extra: Json): Json => ({ containers: [{ name: 'web', image: 'nginx:1', ...extra }] });
const init = (extra: Json): Json => ({
  initContainers: [{ name: 'setup', image: 'busybox:1', ...extra }],
});
const sc = (extra: Json): Json => web({ securityContext: extra });
/** A container security context that meets the restricted level but for the field a case sets. */
const COMPLIANT = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};
const volume = (source: Json): Json => ({ volumes: [{ name: 'v', ...source }] });
const projection = (source: Json): Json => volume({ projected: { sources: [source] } });
const first = (list: string) => (spec: Json) => (spec[list] as Json[] | undefined)?.[0];
const firstVolume = first('volumes');
const sourceOf = (spec: Json) =>
  ((firstVolume(spec)?.projected as Json | undefined)?.sources as Json[] | undefined)?.[0];

/** Node-mounted volume sources, each as a tenant would write one. */
const NODE_MOUNTED: Json = {
  awsElasticBlockStore: { volumeID: 'vol-1' },
  azureDisk: { diskName: 'd', diskURI: '/d' },
  azureFile: { secretName: 's', shareName: 'share' },
  cephfs: { monitors: ['10.0.0.7:6789'] },
  cinder: { volumeID: 'v-1' },
  fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 },
  flexVolume: { driver: 'example.com/driver' },
  flocker: { datasetName: 'ds' },
  gcePersistentDisk: { pdName: 'disk' },
  gitRepo: { repository: 'https://example.com/repo.git' },
  glusterfs: { endpoints: 'gluster', path: 'vol' },
  iscsi: { targetPortal: '10.0.0.6:3260', iqn: 'iqn.2001-04.com.example:d', lun: 0 },
  nfs: { server: '10.0.0.5', path: '/exports' },
  photonPersistentDisk: { pdID: 'p' },
  portworxVolume: { volumeID: 'px' },
  quobyte: { registry: 'r:7861', volume: 'v' },
  rbd: { monitors: ['10.0.0.7:6789'], image: 'img' },
  scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'sio' } },
  storageos: { volumeName: 'v' },
  vsphereVolume: { volumePath: '[ds] disk.vmdk' },
};

const nodeMounted: RowCase[] = Object.entries(NODE_MOUNTED).map(([type, source]) => ({
  row: `Volume.${type}`,
  spec: volume({ [type]: source }),
  expect: { refused: `spec.volumes[v].${type}` },
}));

const HOST_PROBE = { httpGet: { host: '169.254.169.254', port: 80, path: '/' } };

export const ROW_CASES: RowCase[] = [
  // PodSpec
  {
    row: 'PodSpec.affinity',
    spec: {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' },
          ],
        },
      },
    },
    expect: {
      host: (s) =>
        JSON.stringify(s.affinity).includes('tenantplane.io/tenant') &&
        JSON.stringify(s.affinity).includes('tenantplane.io/virtual-namespace'),
      equals: true,
    },
  },
  {
    row: 'PodSpec.automountServiceAccountToken',
    spec: { automountServiceAccountToken: true },
    expect: { host: (s) => s.automountServiceAccountToken, equals: false },
  },
  {
    row: 'PodSpec.containers',
    spec: web({ env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'a' } } }] }),
    expect: {
      host: (s) => JSON.stringify(first('containers')(s)),
      equals: expect.stringContaining('cfg-x-shop-x-dev'),
    },
  },
  {
    row: 'PodSpec.dnsConfig',
    spec: { dnsConfig: { options: [{ name: 'ndots', value: '2' }] } },
    policy: { tenantDns: { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' } },
    expect: { host: (s) => (s.dnsConfig as Json).nameservers, equals: ['10.96.0.10'] },
  },
  {
    row: 'PodSpec.dnsPolicy',
    spec: { dnsPolicy: 'ClusterFirst' },
    policy: { tenantDns: { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' } },
    expect: { host: (s) => s.dnsPolicy, equals: 'None' },
  },
  {
    row: 'PodSpec.enableServiceLinks',
    spec: { enableServiceLinks: true },
    expect: { host: (s) => s.enableServiceLinks, equals: false },
  },
  {
    row: 'PodSpec.ephemeralContainers',
    spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox:1' }] },
    expect: { host: (s) => s.ephemeralContainers, equals: undefined },
  },
  {
    row: 'PodSpec.evictionResponders',
    spec: { evictionResponders: [{ name: 'acme.io/drainer', priority: 10000 }] },
    expect: { refused: 'the Pod sets spec.evictionResponders, which is never copied' },
  },
  { row: 'PodSpec.hostIPC', spec: { hostIPC: true }, expect: { refused: 'hostIPC' } },
  { row: 'PodSpec.hostNetwork', spec: { hostNetwork: true }, expect: { refused: 'hostNetwork' } },
  { row: 'PodSpec.hostPID', spec: { hostPID: true }, expect: { refused: 'hostPID' } },
  { row: 'PodSpec.hostname', spec: {}, expect: { host: (s) => s.hostname, equals: 'web' } },
  {
    row: 'PodSpec.imagePullSecrets',
    spec: { imagePullSecrets: [{ name: 'registry' }] },
    expect: { host: (s) => s.imagePullSecrets, equals: [{ name: 'registry-x-shop-x-dev' }] },
  },
  {
    row: 'PodSpec.initContainers',
    spec: init({ envFrom: [{ secretRef: { name: 'creds' } }] }),
    expect: {
      host: (s) => first('initContainers')(s)?.envFrom,
      equals: [{ secretRef: { name: 'creds-x-shop-x-dev' } }],
    },
  },
  {
    row: 'PodSpec.nodeName',
    spec: { nodeName: 'node-a' },
    expect: { host: (s) => s.nodeName, equals: undefined },
  },
  {
    row: 'PodSpec.nodeSelector',
    spec: { nodeSelector: { 'node-role.kubernetes.io/control-plane': '' } },
    expect: { refused: 'spec.nodeSelector' },
  },
  {
    row: 'PodSpec.overhead',
    spec: { overhead: { cpu: '1' } },
    expect: { host: (s) => s.overhead, equals: undefined },
  },
  {
    row: 'PodSpec.preemptionPolicy',
    spec: { preemptionPolicy: 'PreemptLowerPriority' },
    expect: { host: (s) => s.preemptionPolicy, equals: undefined },
  },
  {
    row: 'PodSpec.priority',
    spec: { priority: 1000000 },
    expect: { host: (s) => s.priority, equals: undefined },
  },
  {
    row: 'PodSpec.priorityClassName',
    spec: { priorityClassName: 'critical' },
    policy: { priorityClasses: { critical: 'tenant-dev-high' } },
    expect: { host: (s) => s.priorityClassName, equals: 'tenant-dev-high' },
  },
  {
    row: 'PodSpec.resourceClaims',
    spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu' }] },
    expect: { refused: 'spec.resourceClaims[gpu].resourceClaimName' },
  },
  {
    row: 'PodSpec.runtimeClassName',
    spec: { runtimeClassName: 'runc' },
    policy: { isolation: { ...isolationOf(undefined), runtimeClassName: 'gvisor' } },
    expect: { refused: 'spec.runtimeClassName' },
  },
  {
    row: 'PodSpec.schedulerName',
    spec: { schedulerName: 'mine' },
    expect: { refused: 'spec.schedulerName' },
  },
  {
    row: 'PodSpec.schedulingGroup',
    spec: { schedulingGroup: { podGroupName: 'training' } },
    expect: { refused: 'the Pod sets spec.schedulingGroup, which is never copied' },
  },
  {
    row: 'PodSpec.securityContext',
    spec: { securityContext: { seccompProfile: { type: 'Unconfined' } } },
    expect: { refused: 'spec.securityContext.seccompProfile.type' },
  },
  {
    row: 'PodSpec.serviceAccount',
    spec: { serviceAccount: 'builder' },
    expect: { host: (s) => s.serviceAccount, equals: undefined },
  },
  {
    row: 'PodSpec.serviceAccountName',
    spec: { serviceAccountName: 'builder' },
    policy: { hostServiceAccountName: 'tenant-pods' },
    expect: { host: (s) => s.serviceAccountName, equals: 'tenant-pods' },
  },
  {
    row: 'PodSpec.subdomain',
    spec: { subdomain: 'db' },
    expect: { host: (s) => s.subdomain, equals: 'db-x-shop-x-dev' },
  },
  {
    row: 'PodSpec.tolerations',
    spec: {
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    },
    expect: { refused: 'spec.tolerations' },
  },
  {
    row: 'PodSpec.topologySpreadConstraints',
    spec: {
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'zone',
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
    },
    expect: {
      host: (s) => JSON.stringify(s.topologySpreadConstraints).includes('tenantplane.io/tenant'),
      equals: true,
    },
  },
  {
    row: 'PodSpec.volumes',
    spec: volume({ secret: { secretName: 'tls' } }),
    expect: {
      host: (s) => firstVolume(s),
      equals: { name: 'v', secret: { secretName: 'tls-x-shop-x-dev' } },
    },
  },
  // Container (init containers and sidecars alike)
  {
    row: 'Container.env',
    spec: web({
      env: [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
    }),
    expect: {
      host: (s) => JSON.stringify(first('containers')(s)?.env),
      equals: expect.stringContaining('tenantplane.io/virtual-namespace'),
    },
  },
  {
    row: 'Container.envFrom',
    spec: web({ envFrom: [{ configMapRef: { name: 'cfg' } }] }),
    expect: {
      host: (s) => first('containers')(s)?.envFrom,
      equals: [{ configMapRef: { name: 'cfg-x-shop-x-dev' } }],
    },
  },
  {
    row: 'Container.lifecycle',
    spec: web({ lifecycle: { postStart: HOST_PROBE } }),
    expect: { refused: 'spec.containers[web].lifecycle.postStart.httpGet.host' },
  },
  {
    row: 'Container.livenessProbe',
    spec: web({ livenessProbe: HOST_PROBE }),
    expect: { refused: 'spec.containers[web].livenessProbe.httpGet.host' },
  },
  {
    row: 'Container.readinessProbe',
    spec: web({ readinessProbe: HOST_PROBE }),
    expect: { refused: 'spec.containers[web].readinessProbe.httpGet.host' },
  },
  {
    row: 'Container.startupProbe',
    spec: web({ startupProbe: HOST_PROBE }),
    expect: { refused: 'spec.containers[web].startupProbe.httpGet.host' },
  },
  {
    row: 'Container.ports',
    spec: web({ ports: [{ containerPort: 80, hostPort: 80 }] }),
    expect: { refused: 'host port 80 of container "web"' },
  },
  {
    row: 'Container.securityContext',
    spec: sc({ privileged: true }),
    expect: { refused: 'privileged container "web"' },
  },
  // SecurityContext
  {
    row: 'SecurityContext.allowPrivilegeEscalation',
    spec: sc({ allowPrivilegeEscalation: true }),
    policy: RESTRICTED,
    expect: { refused: 'securityContext.allowPrivilegeEscalation' },
  },
  {
    row: 'SecurityContext.appArmorProfile',
    spec: sc({ appArmorProfile: { type: 'Unconfined' } }),
    expect: { refused: 'securityContext.appArmorProfile.type' },
  },
  {
    row: 'SecurityContext.capabilities',
    spec: sc({ capabilities: { add: ['SYS_ADMIN'] } }),
    expect: { refused: 'securityContext.capabilities.add' },
  },
  {
    row: 'SecurityContext.privileged',
    spec: sc({ privileged: true }),
    expect: { refused: 'privileged container "web"' },
  },
  {
    row: 'SecurityContext.procMount',
    spec: sc({ procMount: 'Unmasked' }),
    expect: { refused: 'securityContext.procMount' },
  },
  {
    row: 'SecurityContext.seLinuxOptions',
    spec: sc({ seLinuxOptions: { type: 'spc_t' } }),
    expect: { refused: 'securityContext.seLinuxOptions.type' },
  },
  {
    row: 'SecurityContext.seccompProfile',
    spec: sc({ seccompProfile: { type: 'Unconfined' } }),
    expect: { refused: 'securityContext.seccompProfile.type' },
  },
  {
    row: 'SecurityContext.windowsOptions',
    spec: sc({ windowsOptions: { hostProcess: true } }),
    expect: { refused: 'windowsOptions.hostProcess' },
  },
  {
    row: 'SecurityContext.runAsNonRoot',
    spec: sc({ ...COMPLIANT, runAsNonRoot: false }),
    policy: RESTRICTED,
    expect: { refused: 'spec.containers[web].securityContext.runAsNonRoot' },
  },
  {
    row: 'SecurityContext.runAsUser',
    spec: sc({ ...COMPLIANT, runAsNonRoot: true, runAsUser: 0 }),
    policy: RESTRICTED,
    expect: { refused: 'spec.containers[web].securityContext.runAsUser' },
  },
  // PodSecurityContext
  {
    row: 'PodSecurityContext.runAsNonRoot',
    spec: { ...sc(COMPLIANT), securityContext: { runAsNonRoot: false } },
    policy: RESTRICTED,
    expect: { refused: 'spec.securityContext.runAsNonRoot' },
  },
  {
    row: 'PodSecurityContext.runAsUser',
    spec: { ...sc({ ...COMPLIANT, runAsNonRoot: true }), securityContext: { runAsUser: 0 } },
    policy: RESTRICTED,
    expect: { refused: 'spec.securityContext.runAsUser' },
  },
  {
    row: 'PodSecurityContext.appArmorProfile',
    spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } } },
    expect: { refused: 'spec.securityContext.appArmorProfile.type' },
  },
  {
    row: 'PodSecurityContext.seLinuxOptions',
    spec: { securityContext: { seLinuxOptions: { type: 'spc_t' } } },
    expect: { refused: 'spec.securityContext.seLinuxOptions.type' },
  },
  {
    row: 'PodSecurityContext.seccompProfile',
    spec: { securityContext: { seccompProfile: { type: 'Unconfined' } } },
    expect: { refused: 'spec.securityContext.seccompProfile.type' },
  },
  {
    row: 'PodSecurityContext.sysctls',
    spec: { securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }] } },
    expect: { refused: 'spec.securityContext.sysctls' },
  },
  {
    row: 'PodSecurityContext.windowsOptions',
    spec: { securityContext: { windowsOptions: { hostProcess: true } } },
    expect: { refused: 'windowsOptions.hostProcess' },
  },
  // Volume
  ...nodeMounted,
  {
    row: 'Volume.configMap',
    spec: volume({ configMap: { name: 'cfg' } }),
    expect: { host: (s) => firstVolume(s)?.configMap, equals: { name: 'cfg-x-shop-x-dev' } },
  },
  {
    row: 'Volume.csi',
    spec: volume({ csi: { driver: 'secrets-store.csi.k8s.io' } }),
    expect: { refused: 'spec.volumes[v].csi: driver "secrets-store.csi.k8s.io"' },
  },
  {
    row: 'Volume.downwardAPI',
    spec: volume({
      downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] },
    }),
    expect: {
      host: (s) => JSON.stringify(firstVolume(s)?.downwardAPI),
      equals: expect.stringContaining('tenantplane.io/virtual-namespace'),
    },
  },
  {
    row: 'Volume.ephemeral',
    spec: volume({ ephemeral: { volumeClaimTemplate: { spec: {} } } }),
    expect: {
      host: (s) => firstVolume(s),
      equals: { name: 'v', persistentVolumeClaim: { claimName: 'web-v-x-shop-x-dev' } },
    },
  },
  {
    row: 'Volume.hostPath',
    spec: volume({ hostPath: { path: '/' } }),
    expect: { refused: 'hostPath volume "v"' },
  },
  {
    row: 'Volume.persistentVolumeClaim',
    spec: volume({ persistentVolumeClaim: { claimName: 'data' } }),
    expect: {
      host: (s) => firstVolume(s)?.persistentVolumeClaim,
      equals: { claimName: 'data-x-shop-x-dev' },
    },
  },
  {
    row: 'Volume.projected',
    spec: projection({ secret: { name: 'tls' } }),
    expect: { host: sourceOf, equals: { secret: { name: 'tls-x-shop-x-dev' } } },
  },
  {
    row: 'Volume.secret',
    spec: volume({ secret: { secretName: 'tls' } }),
    expect: { host: (s) => firstVolume(s)?.secret, equals: { secretName: 'tls-x-shop-x-dev' } },
  },
  // VolumeProjection
  {
    row: 'VolumeProjection.clusterTrustBundle',
    spec: projection({ clusterTrustBundle: { name: 'corp-ca', path: 'ca.pem' } }),
    expect: { refused: 'spec.volumes[v].projected.sources[0].clusterTrustBundle.name' },
  },
  {
    row: 'VolumeProjection.configMap',
    spec: projection({ configMap: { name: 'cfg' } }),
    expect: { host: sourceOf, equals: { configMap: { name: 'cfg-x-shop-x-dev' } } },
  },
  {
    row: 'VolumeProjection.downwardAPI',
    spec: projection({
      downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] },
    }),
    expect: {
      host: (s) => JSON.stringify(sourceOf(s)),
      equals: expect.stringContaining('tenantplane.io/virtual-name'),
    },
  },
  {
    row: 'VolumeProjection.podCertificate',
    spec: projection({
      podCertificate: {
        signerName: 'example.com/pods',
        keyType: 'ED25519',
        credentialBundlePath: 'c.pem',
      },
    }),
    expect: { refused: 'spec.volumes[v].projected.sources[0].podCertificate.signerName' },
  },
  {
    row: 'VolumeProjection.secret',
    spec: projection({ secret: { name: 'tls' } }),
    expect: { host: sourceOf, equals: { secret: { name: 'tls-x-shop-x-dev' } } },
  },
  {
    row: 'VolumeProjection.serviceAccountToken',
    spec: projection({ serviceAccountToken: { path: 'token', audience: 'vault' } }),
    expect: {
      host: (s) => JSON.stringify(s.volumes),
      equals: expect.not.stringContaining('serviceAccountToken'),
    },
  },
];
