/**
 * The restricted checks of the Pod Security Standards, each the latest version of upstream's
 * `k8s.io/pod-security-admission/policy/check_<id>.go` (v0.37.2): what a Pod must set to run
 * hardened (no root, no privilege escalation, every capability dropped, a confined seccomp
 * profile) and the volume types it may use. Each names the baseline checks it replaces.
 */
import { procMountFindings } from './pod-security-baseline.js';
import {
  containersOf,
  type Finding,
  inUserNamespace,
  isSet,
  isWindowsPod,
  type PodSecurityCheck,
  podSecurityContext,
  record,
  records,
  securityContexts,
  shown,
} from './pod-security-support.js';

/**
 * The inline volume sources a restricted Pod may use: none of them mounts anything of the node or
 * of a network address the tenant names (also every level's tenant volume types: `node-volumes.ts`).
 */
export const RESTRICTED_VOLUME_SOURCES: readonly string[] = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

/** The volume sources the check names when it refuses one, in upstream's order. */
const NAMED_VOLUME_SOURCES: readonly string[] = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

const CONFINED_SECCOMP: ReadonlySet<unknown> = new Set(['RuntimeDefault', 'Localhost']);

/**
 * A field every container must have, here or (`podWide`) once for the Pod: the explicit bad
 * values first (the Pod's, then the containers'), then each container that left it unset while
 * the Pod did not set it right either, as upstream reports them.
 */
function requiredOnPodOrContainer(
  spec: Record<string, unknown>,
  read: (security: Record<string, unknown> | undefined) => unknown,
  good: (value: unknown) => boolean,
  field: string,
  required: string,
): Finding[] {
  const pod = podSecurityContext(spec);
  const podValue = read(pod.security);
  const explicit: Finding[] = [];
  if (isSet(podValue) && !good(podValue)) {
    explicit.push({ path: `${pod.path}.${field}`, value: shown(podValue) });
  }
  const podWide = isSet(podValue) && good(podValue);
  const implicit: Finding[] = [];
  for (const { path, security } of containersOf(spec)) {
    const value = read(security);
    if (isSet(value)) {
      if (!good(value))
        explicit.push({ path: `${path}.securityContext.${field}`, value: shown(value) });
    } else if (!podWide) {
      implicit.push({
        path: `${path}.securityContext.${field}`,
        value: `${required} (here or in ${pod.path})`,
        required: true,
      });
    }
  }
  return [...explicit, ...implicit];
}

/** The restricted checks, in upstream's order (by id). */
export const RESTRICTED_CHECKS: readonly PodSecurityCheck[] = [
  {
    // 1.25+: a Windows Pod cannot set it, and is exempt.
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    since: 25,
    findings({ spec }) {
      if (isWindowsPod(spec)) return [];
      return containersOf(spec)
        .filter(({ security }) => security?.allowPrivilegeEscalation !== false)
        .map(({ path }) => ({
          path: `${path}.securityContext.allowPrivilegeEscalation`,
          value: 'false',
          required: true,
        }));
    },
  },
  {
    // 1.25+: a Windows Pod cannot set capabilities, and is exempt.
    id: 'capabilities_restricted',
    level: 'restricted',
    since: 25,
    overrides: ['capabilities_baseline'],
    findings({ spec }) {
      if (isWindowsPod(spec)) return [];
      const missingDrop: Finding[] = [];
      const added: Finding[] = [];
      for (const { path, security } of containersOf(spec)) {
        const at = `${path}.securityContext.capabilities`;
        const capabilities = record(security?.capabilities);
        const drop = capabilities?.drop;
        if (!Array.isArray(drop) || !drop.includes('ALL')) {
          missingDrop.push({ path: `${at}.drop`, value: '"ALL"', required: true });
        }
        const add = capabilities?.add;
        for (const capability of Array.isArray(add) ? add : []) {
          if (capability !== 'NET_BIND_SERVICE') {
            added.push({ path: `${at}.add`, value: shown(capability) });
          }
        }
      }
      return [...missingDrop, ...added];
    },
  },
  {
    // 1.35+: the baseline `procMount` relaxes for user namespaces; restricted does not.
    id: 'procMount_restricted',
    level: 'restricted',
    since: 35,
    overrides: ['procMount'],
    findings: ({ spec }) => procMountFindings(spec),
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    since: 0,
    overrides: ['hostPathVolumes'],
    findings({ spec }) {
      const found: Finding[] = [];
      for (const volume of records(spec.volumes)) {
        if (RESTRICTED_VOLUME_SOURCES.some((source) => isSet(volume[source]))) continue;
        // A volume with no source at all is an emptyDir: the API defaults it so (upstream's
        // fixtures have one, passing).
        if (Object.keys(volume).every((key) => key === 'name' || !isSet(volume[key]))) continue;
        const source = NAMED_VOLUME_SOURCES.find((name) => isSet(volume[name]));
        const at = `spec.volumes[${String(volume.name)}]`;
        found.push({
          path: source ? `${at}.${source}` : at,
          value: `a volume of type ${source ?? 'unknown'}`,
        });
      }
      return found;
    },
  },
  {
    // 1.35+: any user in a user namespace (`hostUsers: false`).
    id: 'runAsNonRoot',
    level: 'restricted',
    since: 35,
    findings({ spec }) {
      if (inUserNamespace(spec)) return [];
      return requiredOnPodOrContainer(
        spec,
        (security) => security?.runAsNonRoot,
        (value) => value !== false,
        'runAsNonRoot',
        'true',
      );
    },
  },
  {
    // 1.35+: any user in a user namespace (`hostUsers: false`).
    id: 'runAsUser',
    level: 'restricted',
    since: 35,
    findings({ spec }) {
      if (inUserNamespace(spec)) return [];
      return securityContexts(spec)
        .filter(({ security }) => security?.runAsUser === 0)
        .map(({ path }) => ({ path: `${path}.runAsUser`, value: '0' }));
    },
  },
  {
    // 1.25+: a Windows Pod cannot set it, and is exempt.
    id: 'seccompProfile_restricted',
    level: 'restricted',
    since: 25,
    overrides: ['seccompProfile_baseline'],
    findings({ spec }) {
      if (isWindowsPod(spec)) return [];
      return requiredOnPodOrContainer(
        spec,
        (security) => {
          const profile = record(security?.seccompProfile);
          return profile ? (profile.type ?? '') : undefined;
        },
        (type) => CONFINED_SECCOMP.has(type),
        'seccompProfile.type',
        'RuntimeDefault or Localhost',
      );
    },
  },
];
