/**
 * Follow mode with exactly the deploy/rbac grants (issue 29): a follow whose host identity holds
 * host-cluster.yaml, host-workloads.yaml and the opt-in host-follow.yaml opens every watch it needs
 * (no failed watch), converges a tenant Pod to Running with no other command and writes nothing
 * else; the same identity without host-follow.yaml cannot start a follow, and says why; nor can
 * one without the grants on its Lease (issue 35): it names them and writes nothing.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName, runFollow } from '../../../lib/engine/index.js';
import type { KindRef, PassResult } from '../../../lib/ports/index.js';
import { createTenant, TENANT_CLUSTER, tenantObject, useApis, waitFor } from '../engine/support.js';
import {
  fillHostTemplate,
  HOST_WORKLOAD_FILES,
  rbacFile,
  restrictedHostIdentity,
} from '../support/rbac.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const LEASE: KindRef = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

/** A host client of the restricted identity, once RBAC lets it list its host namespace's Pods. */
async function restrictedHost(
  tenant: string,
  hostNamespace: string,
  files: readonly string[],
  edit?: (manifest: string, file: string) => string,
) {
  const identity = await restrictedHostIdentity(tenant, hostNamespace, files, edit);
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

  it('a follow that may not write the lease does not start, and the error names the missing grant', async () => {
    const t = await createTenant(apis(), 'follow-nolease', { toHost: [POD] });
    // host-cluster.yaml without its two rules on leases: every other grant a follow needs.
    const withoutLeases = (manifest: string) =>
      manifest.replace(
        /^ {2}- apiGroups: \[coordination\.k8s\.io\]\n {4}resources: \[leases\]\n(?: {4}.*\n)+/gm,
        '',
      );
    const edited = withoutLeases(
      fillHostTemplate(
        await readFile(rbacFile('host-cluster.yaml'), 'utf8'),
        t.name,
        t.hostNamespace,
      ),
    );
    expect(edited).not.toContain('leases');
    const hostApi = await restrictedHost(
      t.name,
      t.hostNamespace,
      [...HOST_WORKLOAD_FILES, 'host-follow.yaml'],
      (manifest, file) => (file === 'host-cluster.yaml' ? withoutLeases(manifest) : manifest),
    );
    const before = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    let failure: unknown;
    try {
      // Were it to start, it would end by itself after two quiet seconds.
      await runFollow({ tenant: t.name, tenantApi: t.tenantApi, hostApi, quietSeconds: 2 });
    } catch (error) {
      failure = error;
    } finally {
      await hostApi.close();
    }
    expect(String(failure)).toContain(
      `this follow may not get, create, update, delete leases.coordination.k8s.io in namespace ${t.hostNamespace}`,
    );
    expect(String(failure)).toContain(
      `grant the verbs get, create, update, delete on leases (API group coordination.k8s.io) in namespace ${t.hostNamespace}`,
    );
    // It wrote nothing: no copy, no lease, no status.follow.
    const after = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(await t.hostApi.list(LEASE, { namespace: t.hostNamespace })).toMatchObject({
      items: [],
    });
  }, 60_000);
});
