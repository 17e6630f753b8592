/**
 * Volumes the node mounts or attaches from its own position: an NFS export or a Ceph, Gluster,
 * iSCSI or Fibre Channel target by address, a cloud disk by id (`awsElasticBlockStore`,
 * `gcePersistentDisk`, `azureDisk`...), a Git repository cloned by the kubelet (`gitRepo`), a
 * FlexVolume driver run as root. The host's node does it with the host's network and cloud
 * identity, so a tenant naming one reaches whatever the node reaches: another tenant's disk, an
 * operator's export. Pod Security's baseline level does not forbid them (only `hostPath`), so this
 * is the engine's own rule, at every level: refused unless the policy allows host access.
 *
 * What is allowed is a list, not what is refused: the volume types Pod Security's restricted
 * level allows (`k8s.io/pod-security-admission` `restrictedVolumes`: configMap, csi, downwardAPI,
 * emptyDir, ephemeral, image, persistentVolumeClaim, projected, secret), each of which names only
 * tenant objects or nothing on the node. Every other type, one added by a later Kubernetes
 * included, is refused. `hostPath` is host access in words of its own (`hardening.ts`).
 *
 * An inline `csi` volume is one of those types, yet what it reaches is the driver's: the host
 * node's driver mounts it with the driver's own identity (a secrets store reading a cloud's
 * secrets, a file system of the cloud account). So only the drivers the policy names
 * (`spec.workloads.volumes.csiDrivers`) are allowed, none by default.
 */
import { isRecord } from '../../../../common/index.js';
import { isolationOf, type WorkloadPolicy } from '../../../policy/workloads.js';
import { RESTRICTED_VOLUME_SOURCES } from './pod-security-restricted.js';

/** The volume types a tenant Pod may have without host access (see the module doc). */
export const TENANT_VOLUME_TYPES: ReadonlySet<string> = new Set(RESTRICTED_VOLUME_SOURCES);

/** Refused in words of its own, as host access (`hardening.ts`). */
const HOST_PATH = 'hostPath';

/**
 * The fields of a Pod spec's volumes that the node mounts from its own position
 * (`spec.volumes[data].nfs`), in order; empty when there are none.
 */
export function nodeMountedVolumes(spec: unknown): string[] {
  if (!isRecord(spec) || !Array.isArray(spec.volumes)) return [];
  const found: string[] = [];
  for (const volume of spec.volumes) {
    if (!isRecord(volume)) continue;
    for (const [type, source] of Object.entries(volume)) {
      if (type === 'name' || type === HOST_PATH || source === undefined || source === null)
        continue;
      if (!TENANT_VOLUME_TYPES.has(type))
        found.push(`spec.volumes[${String(volume.name)}].${type}`);
    }
  }
  return found;
}

/**
 * The Skip reason of a Pod with a volume the node mounts from its own position, unless the
 * policy allows host access; `undefined` otherwise.
 */
export function nodeVolumeRefusal(
  spec: unknown,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (policy?.allowHostAccess === true) return undefined;
  const found = nodeMountedVolumes(spec);
  if (found.length === 0) return undefined;
  return `the Pod has a volume the host's node would mount or attach from its own network position or cloud identity (${found.join(', ')}), which the policy does not allow (spec.workloads.allowHostAccess); use a PersistentVolumeClaim, whose host copy gets a volume of the host's storage classes`;
}

/**
 * The Skip reason of a Pod with an inline CSI volume whose driver the policy does not name
 * (`spec.workloads.volumes.csiDrivers`), unless it allows host access; `undefined` otherwise.
 */
export function inlineCsiRefusal(
  spec: unknown,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (policy?.allowHostAccess === true) return undefined;
  if (!isRecord(spec) || !Array.isArray(spec.volumes)) return undefined;
  const allowed = isolationOf(policy).volumes.csiDrivers;
  const found: string[] = [];
  for (const volume of spec.volumes) {
    if (!isRecord(volume) || !isRecord(volume.csi)) continue;
    const driver = typeof volume.csi.driver === 'string' ? volume.csi.driver : '';
    if (!allowed.includes(driver)) {
      found.push(`spec.volumes[${String(volume.name)}].csi: driver "${driver}"`);
    }
  }
  if (found.length === 0) return undefined;
  const named = allowed.length === 0 ? 'none' : allowed.join(', ');
  return `the Pod has an inline CSI volume (${found.join(', ')}) that the host's node would mount with the driver's own identity, a driver the policy does not allow (spec.workloads.volumes.csiDrivers: ${named}); use a PersistentVolumeClaim, or have the operator list the driver`;
}
