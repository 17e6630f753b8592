/**
 * A tenant Service records its host copy's cluster IP(s) as the annotation
 * {@link HOST_CLUSTER_IP_ANNOTATION} (not a status field), where a tenant DNS can read it; written
 * with the status back (`../status-back.ts`).
 */
import { isRecord } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import { Annotations } from '../../names/metadata.js';

/** The annotation on a tenant Service that records its host copy's cluster IP(s). */
export const HOST_CLUSTER_IP_ANNOTATION = Annotations.HostClusterIp;

/**
 * The value {@link HOST_CLUSTER_IP_ANNOTATION} should have on a tenant Service: its host copy's
 * `spec.clusterIPs` (or `clusterIP`), comma-separated; `None` for a headless one; `undefined`
 * while the host has assigned none.
 */
export function hostClusterIpAnnotation(hostService: KubeObject): string | undefined {
  const spec = isRecord(hostService.spec) ? hostService.spec : {};
  const ips = Array.isArray(spec.clusterIPs)
    ? spec.clusterIPs.filter((ip): ip is string => typeof ip === 'string' && ip !== '')
    : [];
  if (ips.length > 0) return ips.join(',');
  return typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : undefined;
}

/**
 * The tenant Service with its host copy's cluster IP recorded, for an update, or `undefined` when
 * it records it already (or the host has none yet).
 */
export function recordHostClusterIp(
  hostService: KubeObject,
  tenantService: KubeObject,
): KubeObject | undefined {
  const value = hostClusterIpAnnotation(hostService);
  if (value === undefined) return undefined;
  const annotations = tenantService.metadata.annotations ?? {};
  if (annotations[HOST_CLUSTER_IP_ANNOTATION] === value) return undefined;
  return {
    ...tenantService,
    metadata: {
      ...tenantService.metadata,
      annotations: { ...annotations, [HOST_CLUSTER_IP_ANNOTATION]: value },
    },
  };
}
