/**
 * Follow mode with exactly the deploy/rbac grants (issue 29): a follow whose host identity holds
 * host-cluster.yaml, host-workloads.yaml and the opt-in host-follow.yaml opens every watch it needs
 * (no failed watch), converges a tenant Pod to Running with no other command and writes nothing
 * else; the same identity without host-follow.yaml cannot start a follow, and says why.
 */
import { describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName, runFollow } from '../../../lib/engine/index.js';
import type { KindRef, PassResult } from '../../../lib/ports/index.js';
import { createTenant, tenantObject, useApis, waitFor } from '../engine/support.js';
import { HOST_WORKLOAD_FILES, restrictedHostIdentity } from '../support/rbac.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };

/** A host client of the restricted identity, once RBAC lets it list its host namespace's Pods. */
async function restrictedHost(tenant: string, hostNamespace: string, files: readonly string[]) {
  const identity = await restrictedHostIdentity(tenant, hostNamespace, files);
  const hostApi = createClusterApi(identity);
  await waitFor('the grants in effect', async () =>
    (await hostApi.list(POD, { namespace: hostNamespace, limit: 1 })) ? true : undefined,
  );
  return hostApi;
}

describe('follow mode with the deploy/rbac grants', () => {
  it('host-follow.yaml gives a follow every watch it needs: a tenant Pod runs with no other command, no watch fails', async () => {
    const t = await createTenant(apis(), 'follow-rbac', { toHost: [POD] });
    const hostApi = await restrictedHost(t.name, t.hostNamespace, [
      ...HOST_WORKLOAD_FILES,
      'host-follow.yaml',
    ]);
    const abort = new AbortController();
    const passes: PassResult[] = [];
    const following = runFollow({
      tenant: t.name,
      tenantApi: t.tenantApi,
      hostApi,
      signal: abort.signal,
      onPass: (result) => passes.push(result),
    });
    try {
      await waitFor('the first pass', async () => (passes.length > 0 ? true : undefined));
      const spec = {
        automountServiceAccountToken: false,
        containers: [{ name: 'c', image: 'nginx:1' }],
      };
      await t.tenantApi.create(tenantObject(t, POD, t.vns.a, 'web', { spec }));
      await waitFor(
        'the tenant Pod Running',
        async () => {
          const pod = await t.tenantApi.get(POD, t.vns.a, 'web');
          return (pod?.status as { phase?: string } | undefined)?.phase === 'Running'
            ? true
            : undefined;
        },
        60_000,
      );
      expect(
        await t.hostApi.get(POD, t.hostNamespace, hostName('web', t.vns.a, t.name)),
      ).toBeDefined();
    } finally {
      abort.abort();
    }
    const result = await following;
    await hostApi.close();
    expect(result.gaps).toBe(0);
    expect(result.failures).toEqual([]);
    expect(passes.flatMap((p) => p.errors)).toEqual([]);
  }, 120_000);

  it('without host-follow.yaml a follow does not start, and the error names the refused request', async () => {
    const t = await createTenant(apis(), 'follow-norbac', { toHost: [POD] });
    const hostApi = await restrictedHost(t.name, t.hostNamespace, HOST_WORKLOAD_FILES);
    await expect(
      runFollow({ tenant: t.name, tenantApi: t.tenantApi, hostApi, whenHeld: 'exit' }),
    ).rejects.toThrow(/forbidden|Forbidden/);
    await hostApi.close();
  }, 60_000);
});
