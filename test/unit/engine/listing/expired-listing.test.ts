/**
 * Expired continue tokens (410 Gone): a kind's listing restarts from its first page once per pass
 * (the tenant view skips what it already took in), then gives up as incomplete; the host listing
 * restarts the same way.
 */
import { describe, expect, it } from '@jest/globals';
import { restartExpired } from '../../../../lib/engine/listing/expired-listing.js';
import { listHostObjects } from '../../../../lib/engine/listing/host-listing.js';
import { syncKind } from '../../../../lib/engine/pipeline/sync-kind.js';
import { compileKindRule } from '../../../../lib/engine/policy/scope.js';
import { ClusterError } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm, HOST_NS, hostCopyOf, passContext } from '../support.js';

const expired = () =>
  new ClusterError('Expired', 'The provided continue parameter is too old', { status: 410 });

/** Fails the first `times` paged (continue) lists of the cluster with 410. */
function expireContinues(cluster: MemoryCluster, times: number): MemoryCluster {
  let left = times;
  return cluster.failWhen((c) => {
    if (c.method !== 'list' || !c.options?.continueToken || left <= 0) return undefined;
    left -= 1;
    return expired();
  });
}

describe('restartExpired', () => {
  it('restarts once per kind, then gives up with the reason', () => {
    const restarted = new Set<string>();
    expect(restartExpired(restarted, CONFIGMAP, new Error('other'))).toBe(false);
    expect(restartExpired(restarted, CONFIGMAP, expired())).toBe(true);
    expect(() => restartExpired(restarted, CONFIGMAP, expired())).toThrow(
      /expired again .* after the listing restarted once this pass/,
    );
    expect(restartExpired(restarted, { apiVersion: 'v1', kind: 'Secret' }, expired())).toBe(true);
  });
});

describe('a tenant listing whose continue token expires', () => {
  const tenantObjects = [cm('a', '1'), cm('a', '2'), cm('a', '3'), cm('b', '4'), cm('b', '5')];

  it('restarts from the first page once and completes, each object applied once', async () => {
    const tenantApi = expireContinues(new MemoryCluster('tenant').seed(...tenantObjects), 1);
    const hostApi = new MemoryCluster('host');
    const ctx = passContext({ tenantApi, hostApi, budget: { pageSize: 2 } });
    await syncKind(ctx, compileKindRule(CONFIGMAP));
    expect(ctx.ledger.errors.errors).toEqual([]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual([]);
    expect(hostApi.callsOf('create')).toHaveLength(5);
    expect(ctx.ledger.recorder.counts.Create).toBe(5);
  });

  it('gives up after a second expiry: incomplete, and no garbage collection', async () => {
    const orphan = hostCopyOf(cm('gone', 'orphan'));
    const tenantApi = expireContinues(new MemoryCluster('tenant').seed(...tenantObjects), 2);
    const hostApi = new MemoryCluster('host').seed(orphan);
    const ctx = passContext({ tenantApi, hostApi, budget: { pageSize: 2 } });
    await syncKind(ctx, compileKindRule(CONFIGMAP));
    expect(ctx.ledger.errors.errors).toEqual([
      expect.objectContaining({
        reason: 'Expired',
        message: expect.stringMatching(/expired again .* restarted once this pass/),
      }),
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual([
      'ConfigMap: the tenant listing failed, so its garbage collection was skipped',
    ]);
    expect(hostApi.callsOf('delete')).toEqual([]);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, orphan.metadata.name)).toBeDefined();
  });
});

describe('a host listing whose continue token expires', () => {
  it('restarts once from the first page, then gives up', async () => {
    const copies = ['1', '2', '3'].map((n) => hostCopyOf(cm('a', n)));
    const once = expireContinues(new MemoryCluster('host').seed(...copies), 1);
    const listed = await listHostObjects(
      passContext({ hostApi: once, budget: { pageSize: 2 } }).scope,
      CONFIGMAP,
    );
    expect(listed?.map((o) => o.metadata.name).sort()).toEqual(
      copies.map((c) => c.metadata.name).sort(),
    );
    const twice = expireContinues(new MemoryCluster('host').seed(...copies), 2);
    await expect(
      listHostObjects(passContext({ hostApi: twice, budget: { pageSize: 2 } }).scope, CONFIGMAP),
    ).rejects.toMatchObject({ reason: 'Expired' });
  });
});
