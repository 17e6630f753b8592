/**
 * How a pass fails: the typed pass-level errors (a missing TenantCluster, a bad policy, an
 * unreachable cluster, any other failure to read the TenantCluster), and the failures it survives
 * (a forbidden or missing kind, a failed host listing, rejected objects, a recreated object under
 * a delete, hostile tenant objects).
 */
import { describe, expect, it } from '@jest/globals';
import { ClusterUnreachableError, PassError } from '../../../../lib/engine/errors.js';
import {
  InvalidPolicyError,
  runPass,
  TenantClusterNotFoundError,
} from '../../../../lib/engine/index.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hostCopyOf,
  hostSummary,
  SECRET,
  secret,
  TENANT,
  writesBesideFailureReport,
} from '../support.js';

describe('failures', () => {
  it('throws TenantClusterNotFoundError when the TenantCluster is missing', async () => {
    const tenantApi = new MemoryCluster('tenant');
    const hostApi = new MemoryCluster('host');
    await expect(runPass({ tenant: TENANT, tenantApi, hostApi })).rejects.toThrow(
      TenantClusterNotFoundError,
    );
  });

  it('throws InvalidPolicyError for a bad spec', async () => {
    const { tenantApi, hostApi } = clusters([], [], { hostNamespace: 'NOT OK' });
    const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect(error).toBeInstanceOf(PassError);
    expect(writesBesideFailureReport(hostApi)).toBe(0);
  });

  it.each(['host', 'tenant'] as const)(
    'throws ClusterUnreachableError when the %s cluster cannot be reached',
    async (role) => {
      const { tenantApi, hostApi } = clusters([cm('default', 'a')], []);
      const transport = new ClusterError('Transport', 'connect ECONNREFUSED 127.0.0.1:6443');
      (role === 'host' ? hostApi : tenantApi).failWhen(() => transport);
      const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterUnreachableError);
      expect((error as ClusterUnreachableError).role).toBe(role);
      expect((error as Error).cause).toBe(transport);
      expect(writesBesideFailureReport(hostApi)).toBe(0);
    },
  );

  it('wraps other failures to read the TenantCluster in a PassError with cause', async () => {
    const { tenantApi, hostApi } = clusters([], []);
    const forbidden = new ClusterError('Forbidden', 'tenantclusters is forbidden');
    hostApi.failWhen((c) => (c.kind === 'TenantCluster' ? forbidden : undefined));
    const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassError);
    expect((error as Error).cause).toBe(forbidden);
  });

  it('a forbidden or missing kind is a per-kind error: other kinds sync, its GC is skipped', async () => {
    const orphanWidget: KubeObject = hostCopyOf({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { namespace: 'default', name: 'w', uid: 'u' },
    });
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'a'), secret('default', 's')],
      [orphanWidget, hostCopyOf(secret('default', 'old'))],
      { toHost: [{ apiVersion: 'example.com/v1', kind: 'Widget' }, SECRET, CONFIGMAP] },
      { tenant: { installedKinds: [CONFIGMAP, SECRET] } },
    );
    tenantApi.failWhen((c) =>
      c.kind === 'Secret' && c.method === 'list'
        ? new ClusterError('Forbidden', 'secrets is forbidden')
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/Widget: the tenant listing failed/);
    expect(result.incompleteReason).toMatch(/Secret: the tenant listing failed/);
    expect(result.errors.map((e) => [e.kind, e.reason])).toEqual([
      ['Widget', 'NotFound'],
      ['Secret', 'Forbidden'],
    ]);
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/a -> a-x-default-x-dev',
    ]);
    // Nothing garbage-collected from the incomplete kinds.
    expect(hostApi.objects().map((o) => o.metadata.name)).toEqual(
      expect.arrayContaining(['w-x-default-x-dev', 'old-x-default-x-dev']),
    );
  });

  it('a failed host listing skips that kind entirely', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'list' ? new ClusterError('TooManyRequests', 'slow down') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/ConfigMap: the host listing failed/);
    expect(result.decisions).toEqual([]);
  });

  it('aggregates per-object errors: a rejected object never stops the rest', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'bad'), cm('default', 'good'), cm('default', 'stale', { k: 'new' })],
      [hostCopyOf(cm('default', 'stale'))],
      { toHost: [CONFIGMAP] },
    );
    hostApi.failWhen((c) =>
      c.method === 'create' && c.name === 'bad-x-default-x-dev'
        ? new ClusterError('Invalid', 'denied by ValidatingAdmissionPolicy "no-bad"')
        : undefined,
    );
    hostApi.failWhen((c) =>
      c.method === 'update'
        ? new ClusterError('Conflict', 'the object has been modified')
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(true);
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/bad -> bad-x-default-x-dev',
      'Create ConfigMap default/good -> good-x-default-x-dev',
      'Update ConfigMap default/stale -> stale-x-default-x-dev',
    ]);
    expect(result.errors).toEqual([
      {
        kind: 'ConfigMap',
        tenantRef: { namespace: 'default', name: 'bad' },
        hostRef: { namespace: HOST_NS, name: 'bad-x-default-x-dev' },
        message: 'denied by ValidatingAdmissionPolicy "no-bad"',
        reason: 'Invalid',
      },
      expect.objectContaining({ kind: 'ConfigMap', reason: 'Conflict' }),
    ]);
    expect(result.decisions.find((d) => d.tenantRef.name === 'bad')?.error).toMatch(/no-bad/);
    expect(hostSummary(hostApi).map((o) => o.ref)).toContain('ConfigMap good-x-default-x-dev');
  });

  it('deletes carry the uid precondition; a recreated object is not deleted (a Skip: checked again next pass)', async () => {
    const orphan = hostCopyOf(cm('default', 'gone'));
    const { tenantApi, hostApi } = clusters([], [orphan], { toHost: [CONFIGMAP] });
    const seeded = hostApi.peek(CONFIGMAP, HOST_NS, 'gone-x-default-x-dev');
    hostApi.failWhen((c) => {
      if (c.method === 'delete') {
        // Someone recreates the object just before the delete arrives.
        hostApi.replace({
          ...(seeded as KubeObject),
          metadata: { ...(seeded as KubeObject).metadata, uid: 'new-uid' },
        });
      }
      return undefined;
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    // 409 on the preconditions: not deleted, never retried blind; the next pass looks again.
    expect(result.decisions[0]?.action).toBe('Skip');
    expect(result.decisions[0]?.reason).toMatch(/changed after it was listed \(409 Conflict/);
    expect(result.errors).toEqual([]);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, 'gone-x-default-x-dev')?.metadata.uid).toBe('new-uid');
  });

  it('survives hostile tenant objects', async () => {
    const hostile: KubeObject[] = [
      cm('default', 'x'.repeat(5000)),
      cm(
        'default',
        '-x--x--x-',
        { k: 'v' },
        { labels: { 'weird/key/with/slashes': '\u0000', '': '' } },
      ),
      cm('a-x-', '-x-'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'no-data' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-scoped' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: '' } },
    ];
    const { tenantApi, hostApi } = clusters(hostile, [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.counts.Create).toBe(4);
    expect(result.errors.map((e) => e.message)).toEqual([
      'a tenant object without a name was ignored',
      'ConfigMap objects without a namespace cannot be synced; only namespaced kinds can',
    ]);
    for (const object of hostApi.objects(CONFIGMAP))
      expect(object.metadata.name.length).toBeLessThanOrEqual(63);
  });
});
