/**
 * The set-up the function and command suites share: a host namespace and a TenantCluster syncing
 * only the objects labelled `tenantplane-test=<tenant>`, and, when asked, a tenant namespace with
 * a labelled ConfigMap and Secret for the pass to copy.
 */

import type { ClusterApi, KindRef, KubeObject } from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';

export interface SeedOptions {
  hostApi: ClusterApi;
  tenant: string;
  hostNamespace: string;
  /** The kinds the TenantCluster syncs, each scoped to `tenant`'s labelled objects. */
  kinds: readonly KindRef[];
  /** A tenant namespace with `app-config` (a ConfigMap) and `db-credentials` (a Secret). */
  apps?: { tenantApi: ClusterApi; namespace: string; passwordB64: string };
}

const LABEL = 'tenantplane-test';

export async function seedTenant(options: SeedOptions): Promise<void> {
  const { hostApi, tenant, hostNamespace, apps } = options;
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
  await hostApi.create({
    ...TENANT_CLUSTER,
    metadata: { name: tenant },
    spec: {
      hostNamespace,
      toHost: options.kinds.map((k) => ({
        apiVersion: k.apiVersion,
        kind: k.kind,
        exclude: { labelSelector: `${LABEL}!=${tenant}` },
      })),
    },
  } as KubeObject);
  if (!apps) return;
  const labels = { [LABEL]: tenant };
  await apps.tenantApi.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: apps.namespace },
  });
  await apps.tenantApi.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'app-config', namespace: apps.namespace, labels },
    data: { greeting: 'hello' },
  });
  await apps.tenantApi.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db-credentials', namespace: apps.namespace, labels },
    type: 'Opaque',
    data: { password: apps.passwordB64 },
  });
}
