/**
 * A tenant's lifecycle around the per-kind sync, end to end through `runPass` on the in-memory
 * fake: bookkeeping before the first host write (and no copy write when it cannot be recorded),
 * retiring what the policy no longer covers, cleaning up a deleted TenantCluster, and the checks
 * that stop a pass before any write.
 */
import { describe, expect, it } from '@jest/globals';
import { InvalidPolicyError, TenantClusterChangedError } from '../../../../lib/engine/errors.js';
import { runPass } from '../../../../lib/engine/index.js';
import { TenantClusterKeys } from '../../../../lib/engine/names/metadata.js';
import { toHostObject } from '../../../../lib/engine/object/transform.js';
import {
  ClusterError,
  type KindRef,
  type KubeObject,
  TENANT_CLUSTER,
} from '../../../../lib/ports/index.js';
import { MemoryCluster, type MemoryClusterOptions } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  SECRET,
  secret,
  TENANT,
  tenantCluster,
  writesBesideFailureReport,
} from '../support.js';

const FINALIZER = TenantClusterKeys.HostCleanupFinalizer;
const OLD_NS = 'tenant-dev-old';
const CLUSTER_ROLE: KindRef = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' };

function setup(
  tc: KubeObject,
  tenantState: KubeObject[],
  hostState: KubeObject[],
  options: { tenant?: MemoryClusterOptions; host?: MemoryClusterOptions } = {},
) {
  const tenantApi = new MemoryCluster('tenant', options.tenant).seed(...tenantState);
  const hostApi = new MemoryCluster('host', options.host).seed(tc, ...hostState);
  return { tenantApi, hostApi };
}

const pass = (clusters: { tenantApi: MemoryCluster; hostApi: MemoryCluster }) =>
  runPass({ tenant: TENANT, ...clusters });

const readTc = (hostApi: MemoryCluster) =>
  hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;

/** Host copies (not the TenantCluster) as `namespace/Kind name`, sorted. */
const hostRefs = (hostApi: MemoryCluster): string[] =>
  hostApi
    .objects()
    .filter((o) => o.kind !== TENANT_CLUSTER.kind)
    .map((o) => `${o.metadata.namespace}/${o.kind} ${o.metadata.name}`)
    .sort();

const deleting = (tc: KubeObject): KubeObject => ({
  ...tc,
  metadata: { ...tc.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' },
});

describe('a fresh TenantCluster', () => {
  it('gets the finalizer and remembered kinds and namespaces before the first host write', async () => {
    const clusters = setup(
      tenantCluster({}, TENANT, true),
      [cm('default', 'a'), secret('default', 's')],
      [],
    );
    const result = await pass(clusters);
    const { hostApi } = clusters;
    // The lease's own requests aside (it is taken before the first of these writes).
    const writes = hostApi.calls.filter(
      (c) => c.method !== 'get' && c.method !== 'list' && c.kind !== 'Lease',
    );
    const firstCopyWrite = writes.findIndex((c) => c.kind !== TENANT_CLUSTER.kind);
    expect(writes.slice(0, firstCopyWrite).map((c) => `${c.method} ${c.kind}`)).toEqual([
      'update TenantCluster',
      'patchStatus TenantCluster',
    ]);
    expect(firstCopyWrite).toBe(2);
    const tc = readTc(hostApi);
    expect(tc.metadata.finalizers).toEqual([FINALIZER]);
    expect(tc.status).toMatchObject({
      syncedKinds: [CONFIGMAP, SECRET],
      hostNamespaces: [HOST_NS],
    });
    expect(hostRefs(hostApi)).toEqual(
      [
        `${HOST_NS}/ConfigMap ${hn('default', 'a')}`,
        `${HOST_NS}/Secret ${hn('default', 's')}`,
      ].sort(),
    );
    // Bookkeeping (finalizer, remembered state) is not what the sync cost.
    expect(result.requests.host.writes).toBe(2);
    expect(result.complete).toBe(true);
  });

  it('records the tenant cluster identity', async () => {
    const clusters = setup(
      tenantCluster({}, TENANT, true),
      [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', uid: 'ks-1' } }],
      [],
    );
    await pass(clusters);
    expect(readTc(clusters.hostApi).status).toMatchObject({ tenantClusterId: 'ks-1' });
  });

  it('a second pass makes zero writes', async () => {
    const clusters = setup(tenantCluster({}, TENANT, true), [cm('default', 'a')], []);
    await pass(clusters);
    const before = clusters.hostApi.requestCount().writes;
    const result = await pass(clusters);
    expect(clusters.hostApi.requestCount().writes - before).toBe(0);
    expect(result.requests.host.writes).toBe(0);
    expect(result.decisions.filter((d) => d.action !== 'Skip')).toEqual([]);
  });
});

describe('retiring and cleaning up', () => {
  const leftSecret = (() => {
    const tc = tenantCluster({ toHost: [CONFIGMAP] });
    (tc.status as Record<string, unknown>).syncedKinds = [CONFIGMAP, SECRET];
    return tc;
  })();
  const movedNamespace = (() => {
    const tc = tenantCluster({ toHost: [CONFIGMAP] });
    (tc.status as Record<string, unknown>).hostNamespaces = [OLD_NS];
    return tc;
  })();

  interface Case {
    name: string;
    tenantCluster: KubeObject;
    tenantState: KubeObject[];
    hostState: KubeObject[];
    expectedHostState: string[];
    expectedDecisions: string[];
    expectedReason?: RegExp;
    expectedStatus?: Record<string, unknown>;
    expectedFinalizers: string[];
    expectedCleanup?: { copiesLeft: number };
  }
  const a = cm('default', 'a');
  const s = secret('default', 's');
  const CASES: Case[] = [
    {
      name: 'a kind removed from toHost has its copies deleted and is forgotten',
      tenantCluster: leftSecret,
      tenantState: [a, s],
      hostState: [hostCopyOf(a), hostCopyOf(s)],
      expectedHostState: [`${HOST_NS}/ConfigMap ${hn('default', 'a')}`],
      expectedDecisions: [`Delete Secret default/s -> ${hn('default', 's')}`],
      expectedReason: /left the sync policy/,
      expectedStatus: { syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] },
      expectedFinalizers: [FINALIZER],
    },
    {
      name: 'a changed host namespace moves the copies and forgets the old one',
      tenantCluster: movedNamespace,
      tenantState: [a],
      hostState: [toHostObject(a, { tenant: TENANT, hostNamespace: OLD_NS })],
      expectedHostState: [`${HOST_NS}/ConfigMap ${hn('default', 'a')}`],
      expectedDecisions: [
        `Create ConfigMap default/a -> ${hn('default', 'a')}`,
        `Delete ConfigMap default/a -> ${hn('default', 'a')}`,
      ],
      expectedStatus: { syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] },
      expectedFinalizers: [FINALIZER],
    },
    {
      name: 'a deleting TenantCluster has every copy deleted and its finalizer removed',
      tenantCluster: deleting(leftSecret),
      tenantState: [a, s],
      hostState: [hostCopyOf(a), hostCopyOf(s), hostCopyOf(cm('default', 'p'), 'prod')],
      expectedHostState: [`${HOST_NS}/ConfigMap ${hn('default', 'p', 'prod')}`],
      expectedDecisions: [
        `Delete ConfigMap default/a -> ${hn('default', 'a')}`,
        `Delete Secret default/s -> ${hn('default', 's')}`,
      ],
      expectedReason: /is being deleted/,
      expectedStatus: { cleanup: { copiesLeft: 0 } },
      expectedFinalizers: [],
      expectedCleanup: { copiesLeft: 0 },
    },
    {
      name: 'a paused, deleting TenantCluster keeps everything',
      tenantCluster: deleting(tenantCluster({ paused: true })),
      tenantState: [a, s],
      hostState: [hostCopyOf(a), hostCopyOf(s)],
      expectedHostState: [
        `${HOST_NS}/ConfigMap ${hn('default', 'a')}`,
        `${HOST_NS}/Secret ${hn('default', 's')}`,
      ],
      expectedDecisions: [],
      expectedFinalizers: [FINALIZER],
    },
  ];

  it.each(CASES)('$name', async (c) => {
    const clusters = setup(c.tenantCluster, c.tenantState, c.hostState);
    const result = await pass(clusters);
    const { hostApi } = clusters;
    expect(hostRefs(hostApi)).toEqual(c.expectedHostState);
    const acted = result.decisions.filter((d) => d.action === 'Create' || d.action === 'Delete');
    expect(decisionLines(acted)).toEqual(c.expectedDecisions);
    if (c.expectedReason)
      for (const d of acted.filter((d) => d.action === 'Delete'))
        expect(d.reason).toMatch(c.expectedReason);
    const tc = readTc(hostApi);
    if (c.expectedStatus) expect(tc.status).toMatchObject(c.expectedStatus);
    expect(tc.metadata.finalizers ?? []).toEqual(c.expectedFinalizers);
    expect(result.cleanup).toEqual(c.expectedCleanup);
    expect(result.errors).toEqual([]);
  });

  it('a deleting TenantCluster whose copies cannot all go keeps its finalizer', async () => {
    const a = cm('default', 'a');
    const clusters = setup(deleting(tenantCluster({ toHost: [CONFIGMAP] })), [a], [hostCopyOf(a)]);
    clusters.hostApi.failWhen((call) =>
      call.method === 'delete' && call.kind === 'ConfigMap'
        ? new ClusterError('Forbidden', 'no', { status: 403 })
        : undefined,
    );
    const result = await pass(clusters);
    expect(result.cleanup).toEqual({ copiesLeft: 1 });
    expect(readTc(clusters.hostApi).metadata.finalizers).toEqual([FINALIZER]);
    expect(readTc(clusters.hostApi).status).toMatchObject({ cleanup: { copiesLeft: 1 } });
  });
});

describe('checks before any write', () => {
  it('a different tenant cluster identity throws TenantClusterChangedError, writing nothing', async () => {
    const tc = tenantCluster();
    (tc.status as Record<string, unknown>).tenantClusterId = 'ks-old';
    const a = cm('default', 'a');
    const clusters = setup(
      tc,
      [
        a,
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', uid: 'ks-new' } },
      ],
      [hostCopyOf(cm('default', 'gone'))],
    );
    await expect(pass(clusters)).rejects.toBeInstanceOf(TenantClusterChangedError);
    await expect(pass(clusters)).rejects.toThrow(/ks-old.*ks-new/);
    expect(writesBesideFailureReport(clusters.hostApi)).toBe(0);
  });

  it('an accepted new identity syncs and records it', async () => {
    const tc = tenantCluster();
    (tc.status as Record<string, unknown>).tenantClusterId = 'ks-old';
    tc.metadata.annotations = { [TenantClusterKeys.AcceptTenantClusterId]: 'ks-new' };
    const clusters = setup(
      tc,
      [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', uid: 'ks-new' } }],
      [],
    );
    const result = await pass(clusters);
    expect(result.complete).toBe(true);
    expect(readTc(clusters.hostApi).status).toMatchObject({ tenantClusterId: 'ks-new' });
  });

  it('a host kind that is cluster-scoped is an InvalidPolicyError before any write', async () => {
    const clusters = setup(
      tenantCluster({ toHost: [CONFIGMAP, CLUSTER_ROLE] }, TENANT, true),
      [cm('default', 'a')],
      [],
      { host: { clusterScopedKinds: [CLUSTER_ROLE] } },
    );
    const error = await pass(clusters).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect((error as InvalidPolicyError).problems).toEqual([
      'spec.toHost[1] ClusterRole (rbac.authorization.k8s.io/v1) is cluster-scoped on the host; only namespaced kinds can be synced into a host namespace',
    ]);
    expect(writesBesideFailureReport(clusters.hostApi)).toBe(0);
    expect(readTc(clusters.hostApi).metadata.finalizers).toBeUndefined();
  });
});

/** A host whose TenantCluster CRD predates the engine: the status patch loses `prune`'s fields. */
class OutdatedCrdCluster extends MemoryCluster {
  constructor(private readonly prune: (status: Record<string, unknown>) => void) {
    super('host');
  }

  override patchStatus(
    kind: KindRef,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<KubeObject> {
    const kept = structuredClone(status);
    if (kind.kind === TENANT_CLUSTER.kind) this.prune(kept);
    return super.patchStatus(kind, namespace, name, kept);
  }
}

describe('bookkeeping that cannot be recorded', () => {
  const refuse =
    (method: 'update' | 'patchStatus', error: ClusterError) =>
    (hostApi: MemoryCluster): void => {
      hostApi.failWhen((call) =>
        call.method === method && call.kind === TENANT_CLUSTER.kind ? error : undefined,
      );
    };
  const dropSensitive = (status: Record<string, unknown>) => {
    const kinds = status.syncedKinds as Record<string, unknown>[] | undefined;
    for (const kind of kinds ?? []) delete kind.sensitive;
  };
  interface Case {
    name: string;
    spec?: Record<string, unknown>;
    host: () => MemoryCluster;
    refuse?: (hostApi: MemoryCluster) => void;
    /** Whether the pass may write its copies. */
    writes: boolean;
    reason?: RegExp;
    error?: RegExp;
    warning?: RegExp;
  }
  const CASES: Case[] = [
    {
      name: 'the finalizer update is a 409',
      host: () => new MemoryCluster('host'),
      refuse: refuse(
        'update',
        new ClusterError('Conflict', 'the object has been modified', { status: 409 }),
      ),
      writes: false,
      reason:
        /the host-cleanup finalizer could not be added to TenantCluster "dev", so no copy was written/,
      error: /could not add the host-cleanup finalizer: the object has been modified/,
    },
    {
      name: 'RBAC forbids the finalizer update',
      host: () => new MemoryCluster('host'),
      refuse: refuse(
        'update',
        new ClusterError('Forbidden', 'cannot update tenantclusters', { status: 403 }),
      ),
      writes: false,
      reason: /finalizer could not be added/,
      error: /could not add the host-cleanup finalizer: cannot update tenantclusters/,
    },
    {
      name: 'an admission policy refuses the status patch',
      host: () => new MemoryCluster('host'),
      refuse: refuse(
        'patchStatus',
        new ClusterError('Invalid', 'denied by policy', { status: 422 }),
      ),
      writes: false,
      reason:
        /the synced kinds and host namespaces could not be recorded in the status of TenantCluster "dev"/,
      error: /could not record the synced kinds and host namespaces in status: denied by policy/,
    },
    {
      name: 'an outdated CRD prunes status.hostNamespaces',
      host: () => new OutdatedCrdCluster((status) => delete status.hostNamespaces),
      writes: false,
      reason: /CRD on the host is out of date \(it dropped status\.hostNamespaces\)/,
      error:
        /TenantCluster CRD on the host is out of date: it dropped status\.hostNamespaces .*kubectl apply -f deploy\/crds\/tenantclusters\.tenantplane\.io\.yaml/,
    },
    {
      name: 'an outdated CRD prunes status.syncedKinds[].sensitive',
      spec: { toHost: [{ ...CONFIGMAP, sensitive: true }] },
      host: () => new OutdatedCrdCluster(dropSensitive),
      writes: false,
      reason: /dropped status\.syncedKinds\[\]\.sensitive/,
      error: /CRD on the host is out of date: it dropped status\.syncedKinds\[\]\.sensitive/,
    },
    {
      name: 'an outdated CRD prunes status.fromHostKinds: no copy, of a host class either',
      spec: { toHost: [CONFIGMAP], fromHost: { storageClasses: { names: ['fast'] } } },
      host: () => new OutdatedCrdCluster((status) => delete status.fromHostKinds),
      writes: false,
      reason: /dropped status\.fromHostKinds/,
      error: /CRD on the host is out of date: it dropped status\.fromHostKinds/,
    },
    {
      name: 'an outdated CRD prunes a field that covers no copy: a warning, the copies are written',
      host: () => new OutdatedCrdCluster((status) => delete status.tenantClusterId),
      writes: true,
      warning: /CRD on the host is out of date: it dropped status\.tenantClusterId/,
    },
    {
      name: 'an outdated CRD prunes status.lastPass fields: a warning after the report',
      host: () =>
        new OutdatedCrdCluster((status) => {
          if (status.lastPass) delete (status.lastPass as Record<string, unknown>).failedCount;
        }),
      writes: true,
      warning: /it dropped status\.lastPass\.failedCount/,
    },
  ];

  it.each(CASES)('$name', async (c) => {
    const tenantApi = new MemoryCluster('tenant').seed(cm('default', 'a'), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'kube-system', uid: 'ks-1' },
    });
    const hostApi = c.host().seed(tenantCluster(c.spec ?? { toHost: [CONFIGMAP] }, TENANT, true));
    c.refuse?.(hostApi);
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    const copyWrites = hostApi.calls.filter(
      (call) =>
        call.method !== 'get' &&
        call.method !== 'list' &&
        call.kind !== TENANT_CLUSTER.kind &&
        call.kind !== 'Lease',
    );
    if (c.writes) {
      expect(hostRefs(hostApi)).toEqual([`${HOST_NS}/ConfigMap ${hn('default', 'a')}`]);
      expect(result.complete).toBe(true);
    } else {
      expect(copyWrites).toEqual([]);
      expect(hostRefs(hostApi)).toEqual([]);
      expect(result.decisions).toEqual([]);
      expect(result.complete).toBe(false);
      expect(result.incompleteReason).toMatch(c.reason ?? /never/);
      expect(result.incompleteReason).toMatch(/not started: ConfigMap/);
    }
    const messages = result.errors.map((e) => `${e.kind}: ${e.message}`);
    if (c.error) expect(messages).toContainEqual(expect.stringMatching(c.error));
    if (c.error) expect(messages.every((m) => m.startsWith('TenantCluster: '))).toBe(true);
    else expect(messages).toEqual([]);
    const warnings = (result.warnings ?? []).map((w) => `${w.reason}: ${w.message}`);
    if (c.warning) expect(warnings).toEqual([expect.stringMatching(/^TenantClusterCrdOutdated: /)]);
    if (c.warning) expect(warnings[0]).toMatch(c.warning);
  });

  it('a refused finalizer stops the pass until it is recorded; then the next pass converges', async () => {
    const clusters = setup(
      tenantCluster({ toHost: [CONFIGMAP] }, TENANT, true),
      [cm('default', 'a')],
      [],
    );
    refuse('update', new ClusterError('Forbidden', 'no', { status: 403 }))(clusters.hostApi);
    expect((await pass(clusters)).complete).toBe(false);
    expect(hostRefs(clusters.hostApi)).toEqual([]);
    // The remembered kinds were recorded all the same: only the finalizer is missing.
    expect(readTc(clusters.hostApi).status).toMatchObject({ hostNamespaces: [HOST_NS] });
    clusters.hostApi.clearFailures();
    const next = await pass(clusters);
    expect(next.complete).toBe(true);
    expect(next.errors).toEqual([]);
    expect(readTc(clusters.hostApi).metadata.finalizers).toEqual([FINALIZER]);
    expect(hostRefs(clusters.hostApi)).toEqual([`${HOST_NS}/ConfigMap ${hn('default', 'a')}`]);
  });

  it('a dry run is unaffected: its host client sends no bookkeeping write to refuse', async () => {
    const clusters = setup(
      tenantCluster({ toHost: [CONFIGMAP] }, TENANT, true),
      [cm('default', 'a')],
      [],
    );
    refuse('update', new ClusterError('Forbidden', 'no', { status: 403 }))(clusters.hostApi);
    refuse('patchStatus', new ClusterError('Forbidden', 'no', { status: 403 }))(clusters.hostApi);
    const result = await runPass({ tenant: TENANT, ...clusters, dryRun: true });
    expect(result.complete).toBe(true);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result.decisions)).toEqual([
      `Create ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
  });
});

describe('the mass-delete guard, end to end', () => {
  it('holds 20 of 24 deletions until the token is annotated', async () => {
    const sources = Array.from({ length: 24 }, (_, i) => cm('default', `c${i}`));
    const clusters = setup(
      tenantCluster({ toHost: [CONFIGMAP] }),
      sources.slice(0, 4),
      sources.map((s) => hostCopyOf(s)),
    );
    const first = await pass(clusters);
    expect(first.decisions.filter((d) => d.action === 'Delete')).toEqual([]);
    expect(clusters.hostApi.objects(CONFIGMAP)).toHaveLength(24);
    expect(first.complete).toBe(false);
    expect(first.incompleteReason).toMatch(/ConfigMap: the pass would delete 20 of the 24/);
    expect(first.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard']);
    const token = first.warnings?.[0]?.message.match(
      new RegExp(`${TenantClusterKeys.ConfirmDeletes}=(ConfigMap:[0-9a-f]+)`),
    )?.[1];
    expect(token).toBeDefined();

    const tc = readTc(clusters.hostApi);
    tc.metadata.annotations = { [TenantClusterKeys.ConfirmDeletes]: token as string };
    clusters.hostApi.replace(tc);
    const second = await pass(clusters);
    expect(second.decisions.filter((d) => d.action === 'Delete')).toHaveLength(20);
    expect(clusters.hostApi.objects(CONFIGMAP)).toHaveLength(4);
    expect(second.warnings).toBeUndefined();
    expect(second.complete).toBe(true);
  });
});
