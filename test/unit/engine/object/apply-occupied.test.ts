/**
 * Apply, an occupied host name: decided from the host listing (all objects of the kind in the
 * host namespace, not only the managed ones): Skip with no write and no extra read, every pass.
 * The create-only write plus re-read stays as the fallback when the name is taken after the
 * listing.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import type { KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, decisionLines, HOST_NS, hn, hostCopyOf } from '../support.js';

const foreignAt = (name: string): KubeObject => ({
  ...CONFIGMAP,
  metadata: { namespace: HOST_NS, name, labels: { team: 'platform' } },
  data: { owner: 'someone-else' },
});

describe('an occupied host name', () => {
  it('a foreign occupant is a Skip with zero write requests, pass after pass', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'app', { k: 'mine' })],
      [foreignAt(hn('default', 'app'))],
      { toHost: [CONFIGMAP] },
    );
    const before = hostApi.objects(CONFIGMAP);
    for (let i = 0; i < 2; i++) {
      const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
      expect(decisionLines(result.decisions)).toEqual([
        'Skip ConfigMap default/app -> app-x-default-x-dev',
      ]);
      expect(result.decisions[0]?.reason).toMatch(/a foreign object/);
      // get TenantCluster + one host LIST; no create, no GET of the occupant.
      expect(result.requests.host).toEqual({ reads: 2, writes: 0 });
      expect(result.errors).toEqual([]);
      expect(result.complete).toBe(true);
    }
    // The first pass records its Skip in the status, under the lease: nothing else is created.
    expect(hostApi.callsOf('create').filter((c) => c.kind !== 'Lease')).toEqual([]);
    expect(hostApi.callsOf('get').filter((c) => c.kind === 'ConfigMap')).toEqual([]);
    expect(hostApi.objects(CONFIGMAP)).toEqual(before);
  });

  it("another tenant's copy at the name is a Skip with zero write requests", async () => {
    const theirs = hostCopyOf(cm('default', 'app'), 'prod');
    theirs.metadata.name = hn('default', 'app');
    const { tenantApi, hostApi } = clusters([cm('default', 'app', { k: 'mine' })], [theirs], {
      toHost: [CONFIGMAP],
    });
    const before = hostApi.objects(CONFIGMAP);
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      'Skip ConfigMap default/app -> app-x-default-x-dev',
    ]);
    expect(result.decisions[0]?.reason).toMatch(/an object of another tenant \(a name collision\)/);
    expect(result.decisions[0]?.reason).not.toMatch(/prod/);
    expect(result.requests.host.writes).toBe(0);
    expect(hostApi.objects(CONFIGMAP)).toEqual(before);
  });

  it('lists the host namespace without a label selector, paginated by the page size', async () => {
    const foreign = Array.from({ length: 5 }, (_, i) => foreignAt(`other-${i}`));
    const { tenantApi, hostApi } = clusters([cm('default', 'app')], foreign, {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi, budget: { pageSize: 2 } });
    const hostLists = hostApi.callsOf('list');
    expect(hostLists).toHaveLength(3);
    for (const call of hostLists) {
      expect(call.namespace).toBe(HOST_NS);
      expect(call.options?.labelSelector).toBeUndefined();
      expect(call.options?.limit).toBe(2);
    }
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/app -> app-x-default-x-dev',
    ]);
    // GC never considers the unmanaged objects it listed.
    expect(hostApi.objects(CONFIGMAP)).toHaveLength(6);
  });

  it('a name taken after the listing: the create fails, the re-read decides Skip', async () => {
    const occupant = foreignAt(hn('default', 'app'));
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'app', { k: 'mine' })],
      [],
      { toHost: [CONFIGMAP] },
      {
        host: {
          // Someone takes the name between the engine's LIST and its create.
          beforeCall: (call, cluster) => {
            if (call.method === 'create') cluster.seed(occupant);
          },
        },
      },
    );
    const result = await runPass({ lease: false, tenant: 'dev', tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      'Skip ConfigMap default/app -> app-x-default-x-dev',
    ]);
    expect(result.decisions[0]?.reason).toMatch(/a foreign object/);
    expect(hostApi.callsOf('create')).toHaveLength(1);
    expect(hostApi.callsOf('get').filter((c) => c.kind === 'ConfigMap')).toHaveLength(1);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, occupant.metadata.name)?.data).toEqual({
      owner: 'someone-else',
    });
  });

  it('a dry run decides Create from the listing without any host read of the object', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'app')], [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi, dryRun: true });
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/app -> app-x-default-x-dev',
    ]);
    expect(result.requests.host).toEqual({ reads: 2, writes: 0 });
  });
});
