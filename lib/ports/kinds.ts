/** The kinds tenantplane itself reads and writes on the host, defined once. */
import type { KindRef } from './cluster.js';

/** The TenantCluster kind on the host (cluster-scoped): a tenant's policy and status. */
export const TENANT_CLUSTER = Object.freeze({
  apiVersion: 'tenantplane.io/v1alpha1',
  kind: 'TenantCluster',
} as const satisfies KindRef);

/** core/v1 Event: how Decisions reach `kubectl describe tenantcluster`. */
export const EVENT = Object.freeze({ apiVersion: 'v1', kind: 'Event' } as const satisfies KindRef);
