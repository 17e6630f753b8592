/** The kinds tenantplane itself reads and writes on the host, defined once. */
import type { KindRef } from './cluster.js';

/** The TenantCluster kind on the host (cluster-scoped): a tenant's policy and status. */
export const TENANT_CLUSTER = Object.freeze({
  apiVersion: 'tenantplane.io/v1alpha1',
  kind: 'TenantCluster',
} as const satisfies KindRef);

/** core/v1 Event: how Decisions reach `kubectl describe tenantcluster`. */
export const EVENT = Object.freeze({ apiVersion: 'v1', kind: 'Event' } as const satisfies KindRef);

/** A core Kubernetes kind, frozen: one constant each, shared by every layer. */
function core<const A extends string, const K extends string>(apiVersion: A, kind: K) {
  return Object.freeze({ apiVersion, kind } as const satisfies KindRef);
}

export const POD = core('v1', 'Pod');
export const NODE = core('v1', 'Node');
export const NAMESPACE = core('v1', 'Namespace');
export const CONFIG_MAP = core('v1', 'ConfigMap');
export const SECRET = core('v1', 'Secret');
export const SERVICE = core('v1', 'Service');
export const SERVICE_ACCOUNT = core('v1', 'ServiceAccount');
export const PERSISTENT_VOLUME_CLAIM = core('v1', 'PersistentVolumeClaim');
export const ENDPOINTS = core('v1', 'Endpoints');
export const ENDPOINT_SLICE = core('discovery.k8s.io/v1', 'EndpointSlice');
export const INGRESS = core('networking.k8s.io/v1', 'Ingress');
export const NETWORK_POLICY = core('networking.k8s.io/v1', 'NetworkPolicy');
export const POD_DISRUPTION_BUDGET = core('policy/v1', 'PodDisruptionBudget');
/** The host's service ranges (cluster-scoped; read, never written). */
export const SERVICE_CIDR = core('networking.k8s.io/v1', 'ServiceCIDR');
