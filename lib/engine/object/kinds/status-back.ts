/**
 * Status back for Services, Ingresses and PersistentVolumeClaims (Pods have `pod-status.ts`): what
 * the tenant object must show of its host copy. Pure: from the host copy and the tenant object,
 * the JSON merge patch of the tenant object's `/status`, or `undefined` when it shows it already
 * (so a steady state writes nothing in the tenant).
 *
 * - **Service**: `status.loadBalancer` (the host's load balancer ingress: the address a tenant's
 *   clients reach), and `status.conditions`. The host's cluster IP is not a status field: it is
 *   recorded on the tenant Service as the annotation {@link HOST_CLUSTER_IP_ANNOTATION}
 *   ({@link hostClusterIpAnnotation}), where a tenant DNS can read it.
 * - **Ingress**: `status.loadBalancer`.
 * - **PersistentVolumeClaim**: `phase`, `capacity`, `accessModes`, `conditions`, and the resize
 *   state (`allocatedResources`, `allocatedResourceStatuses`). `spec.volumeName` is not carried: the
 *   host's volume is not the tenant's, and no tenant-side stand-in volume is made.
 */
import { isRecord, jsonEqual } from '../../../common/index.js';
import type { KindRef, KubeObject } from '../../../ports/index.js';
import { Annotations } from '../../names/metadata.js';

/** How one kind's status comes back. */
export interface StatusBackRule {
  readonly kind: KindRef;
  /** The status fields the tenant object shows of its host copy; anything else stays. */
  readonly fields: readonly string[];
  /**
   * Whether the host copy's status is where it will stay a while: one still moving (a claim not
   * bound yet) changes while its tenant object does not, which only a full pass sees
   * (`kind/status-back.ts`). A load balancer address is not waited for: it may never come.
   */
  settled(host: KubeObject): boolean;
}

/** The annotation on a tenant Service that records its host copy's cluster IP(s). */
export const HOST_CLUSTER_IP_ANNOTATION = Annotations.HostClusterIp;

function status(object: KubeObject): Record<string, unknown> {
  return isRecord(object.status) ? object.status : {};
}

const RULES: readonly StatusBackRule[] = [
  {
    kind: { apiVersion: 'v1', kind: 'Service' },
    fields: ['loadBalancer', 'conditions'],
    // A load balancer may never come (no controller on the host): its address waits for a full
    // pass rather than holding the kind on full passes.
    settled: () => true,
  },
  {
    kind: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
    fields: ['loadBalancer'],
    settled: () => true,
  },
  {
    kind: { apiVersion: 'v1', kind: 'PersistentVolumeClaim' },
    fields: [
      'phase',
      'capacity',
      'accessModes',
      'conditions',
      'allocatedResources',
      'allocatedResourceStatuses',
    ],
    settled: (host) => status(host).phase === 'Bound' || status(host).phase === 'Lost',
  },
];

/** The status-back rule of `kind`, when its status comes back. */
export function statusBackRule(kind: KindRef): StatusBackRule | undefined {
  return RULES.find((r) => r.kind.apiVersion === kind.apiVersion && r.kind.kind === kind.kind);
}

/** An empty load balancer status is no status: the tenant's `{}` and an absent one are the same. */
function meaningful(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (isRecord(value)) return Object.values(value).some(meaningful);
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * The JSON merge patch of the tenant object's `/status` that makes it show its host copy's
 * status: each field of the rule that differs (`null` for one the host no longer has), nothing
 * else. `undefined` when the tenant object shows it already.
 */
export function statusBackPatch(
  rule: StatusBackRule,
  host: KubeObject,
  tenant: KubeObject,
): Record<string, unknown> | undefined {
  // A copy the host has not reported on yet says nothing: what the tenant shows stays.
  if (!isRecord(host.status)) return undefined;
  const want = status(host);
  const have = status(tenant);
  const patch: Record<string, unknown> = {};
  for (const field of rule.fields) {
    const wanted = meaningful(want[field]) ? want[field] : undefined;
    const had = meaningful(have[field]) ? have[field] : undefined;
    if (wanted === undefined) {
      if (had !== undefined) patch[field] = null;
    } else if (had === undefined || !jsonEqual(wanted, had)) {
      patch[field] = wanted;
    }
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

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
