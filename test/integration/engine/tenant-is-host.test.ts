/**
 * A tenant kubeconfig that reaches the host cluster (a host kubeconfig pasted as the tenant's),
 * on the real clusters: the pass fails with TenantClusterIsHostError and writes nothing, proven
 * from uid@resourceVersion snapshots of the host namespace it shares with a second tenant and an
 * unmanaged object. Evidence: the same API server, or, through another URL (a proxy) for a new
 * tenant, objects in its host namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { TenantClusterIsHostError } from '../../../lib/engine/errors.js';
import { runPass } from '../../../lib/engine/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { lifecycleScenes } from './lifecycle-support.js';
import { CONFIGMAP, clusters, createTenant, RUN, tenantConfigMap, useApis } from './support.js';

const apis = useApis();
const { scene, snapshot, changes } = lifecycleScenes(apis);
let hostProxy: FaultProxy;

beforeAll(async () => {
  hostProxy = await FaultProxy.start(clusters.host);
});

afterAll(async () => {
  await hostProxy.close();
});

/** The pass's error, or undefined when it did not fail. */
async function failure(pass: Promise<unknown>): Promise<unknown> {
  return pass.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('the tenant cluster is the host', () => {
  it('the tenant kubeconfig names the host’s API server: refused, nothing written', async () => {
    const { t } = await scene('ishost');
    const before = await snapshot(t);
    const pasted = createClusterApi(clusters.host);
    try {
      const error = await failure(
        runPass({ tenant: t.name, tenantApi: pasted, hostApi: t.hostApi }),
      );
      expect(error).toBeInstanceOf(TenantClusterIsHostError);
      expect((error as Error).message).toBe(
        `TenantCluster "${t.name}": the tenant kubeconfig reaches the host cluster (both kubeconfigs name the API server ${new URL(t.hostApi.server).origin}); nothing was written. Give the tenant the kubeconfig of its own tenant cluster.`,
      );
      expect(pasted.requestCount().writes).toBe(0);
    } finally {
      await pasted.close();
    }
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    const status = (tc?.status ?? {}) as { conditions?: { type: string; reason?: string }[] };
    const ready = status.conditions?.find((c) => c.type === 'Ready');
    expect(ready?.reason).toBe('TenantClusterIsHost');
  });

  it('a new tenant reaching the host through another URL: its host namespace is listed, refused', async () => {
    const t = await createTenant(apis(), 'ishost2', { toHost: 'default' });
    // What any host namespace holds (kube-controller-manager publishes kube-root-ca.crt).
    await t.hostApi.create({
      ...CONFIGMAP,
      metadata: { name: `unmanaged-${RUN}`, namespace: t.hostNamespace },
      data: { mine: 'yes' },
    });
    // A second tenant sharing the namespace, with a real tenant kubeconfig.
    const other = await createTenant(apis(), 'ishost2o', { hostNamespace: t.hostNamespace });
    await other.tenantApi.create(tenantConfigMap(other, other.vns.a, 'a'));
    await runPass({ tenant: other.name, tenantApi: other.tenantApi, hostApi: other.hostApi });
    const before = await snapshot(t);
    expect(before.size).toBe(2);

    const viaProxy = createClusterApi(hostProxy.kubeconfig());
    try {
      expect(viaProxy.server).not.toBe(t.hostApi.server);
      const error = await failure(
        runPass({ tenant: t.name, tenantApi: viaProxy, hostApi: t.hostApi }),
      );
      expect(error).toBeInstanceOf(TenantClusterIsHostError);
      expect((error as TenantClusterIsHostError).evidence).toMatch(
        new RegExp(
          `^the tenant cluster lists ConfigMap ${t.hostNamespace}/[^ ]+, in this tenant's host namespace ${t.hostNamespace}$`,
        ),
      );
      expect(viaProxy.requestCount().writes).toBe(0);
    } finally {
      await viaProxy.close();
    }
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
    // Nothing remembered either: the next pass with the right kubeconfig starts clean.
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect(
      (tc?.status as { tenantClusterId?: string } | undefined)?.tenantClusterId,
    ).toBeUndefined();
    expect(tc?.metadata.finalizers ?? []).toEqual([]);
  });
});
