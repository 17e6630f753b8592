/**
 * What the engine remembers about a tenant across passes (TenantCluster status and finalizer):
 * read defensively, written only when it changes, and the policy recheck GC relies on.
 */
import { describe, expect, it } from '@jest/globals';
import { TenantClusterKeys } from '../../../../lib/engine/names/metadata.js';
import { parseSyncPolicy } from '../../../../lib/engine/policy/policy.js';
import {
  ensureFinalizer,
  policyRecheck,
  type Remembered,
  readRemembered,
  releaseFinalizer,
  rememberedPatch,
  unionKinds,
  writeRemembered,
} from '../../../../lib/engine/tenant/lifecycle.js';
import { type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, HOST_NS, SECRET, TENANT, tenantCluster } from '../support.js';

const FINALIZER = TenantClusterKeys.HostCleanupFinalizer;
const withStatus = (status: unknown): KubeObject => ({
  ...TENANT_CLUSTER,
  metadata: { name: TENANT },
  status,
});

describe('readRemembered', () => {
  const cases: Array<{ name: string; status: unknown; expected: Remembered }> = [
    { name: 'no status', status: undefined, expected: { syncedKinds: [], hostNamespaces: [] } },
    {
      name: 'status not an object',
      status: 'x',
      expected: { syncedKinds: [], hostNamespaces: [] },
    },
    {
      name: 'garbled fields',
      status: { syncedKinds: 'ConfigMap', hostNamespaces: { a: 1 }, tenantClusterId: 7 },
      expected: { syncedKinds: [], hostNamespaces: [] },
    },
    {
      name: 'garbled entries are dropped, good ones kept (without extra fields)',
      status: {
        syncedKinds: [
          { apiVersion: 'v1', kind: 'ConfigMap', extra: true },
          { apiVersion: 'v1' },
          'Secret',
          null,
        ],
        hostNamespaces: ['tenant-dev', 3, null],
        tenantClusterId: 'abc',
      },
      expected: {
        syncedKinds: [CONFIGMAP],
        hostNamespaces: ['tenant-dev'],
        tenantClusterId: 'abc',
      },
    },
    {
      name: 'class kinds with copies in the tenant; garbled ones dropped',
      status: { fromHostKinds: ['StorageClass', 7, null, 'PriorityClass'] },
      expected: {
        syncedKinds: [],
        hostNamespaces: [],
        fromHostKinds: ['StorageClass', 'PriorityClass'],
      },
    },
    {
      name: 'no class kinds: absent',
      status: { fromHostKinds: [] },
      expected: { syncedKinds: [], hostNamespaces: [] },
    },
  ];
  it.each(cases)('$name', ({ status, expected }) => {
    expect(readRemembered(withStatus(status))).toEqual(expected);
  });
});

describe('unionKinds', () => {
  it('keeps the first list order and drops duplicates', () => {
    const cr = { apiVersion: 'example.com/v1', kind: 'Widget' };
    expect(unionKinds([SECRET, CONFIGMAP], [CONFIGMAP, cr, { ...SECRET }])).toEqual([
      SECRET,
      CONFIGMAP,
      cr,
    ]);
  });

  it('tells kinds of different apiVersions apart, and strips rule fields', () => {
    const v2 = { apiVersion: 'v2', kind: 'ConfigMap', exclude: ['x'] };
    expect(unionKinds([CONFIGMAP], [v2])).toEqual([
      CONFIGMAP,
      { apiVersion: 'v2', kind: 'ConfigMap' },
    ]);
  });
});

describe('unionKinds keeps sensitivity', () => {
  const SENSITIVE_CM = { ...CONFIGMAP, sensitive: true as const };
  // It rebuilt kinds as {apiVersion, kind} (issue 20, finding 4): a sensitive kind that left the
  // policy was retired with the server's raw messages.
  const cases = [
    {
      name: 'remembered sensitive, policy silent',
      a: [SENSITIVE_CM],
      b: [CONFIGMAP],
      sensitive: true,
    },
    { name: 'policy sensitive, nothing remembered', a: [], b: [SENSITIVE_CM], sensitive: true },
    {
      name: 'remembered only (the kind left the policy)',
      a: [SENSITIVE_CM],
      b: [],
      sensitive: true,
    },
    {
      name: 'policy says sensitive: false',
      a: [],
      b: [{ ...CONFIGMAP, sensitive: false }],
      sensitive: false,
    },
    { name: 'neither', a: [CONFIGMAP], b: [CONFIGMAP], sensitive: false },
  ];
  it.each(cases)('$name', ({ a, b, sensitive }) => {
    expect(unionKinds(a, b)).toEqual([sensitive ? SENSITIVE_CM : CONFIGMAP]);
  });

  it('is read back from status, and only `true` counts', () => {
    const status = {
      syncedKinds: [
        { ...CONFIGMAP, sensitive: true },
        { apiVersion: 'v1', kind: 'Other', sensitive: 'yes' },
      ],
      hostNamespaces: [HOST_NS],
    };
    expect(readRemembered(withStatus(status)).syncedKinds).toEqual([
      SENSITIVE_CM,
      { apiVersion: 'v1', kind: 'Other' },
    ]);
  });
});

describe('rememberedPatch', () => {
  const base: Remembered = {
    syncedKinds: [CONFIGMAP],
    hostNamespaces: [HOST_NS],
    tenantClusterId: 'id-1',
  };
  const cases: Array<{
    name: string;
    next: Remembered;
    expected: Record<string, unknown> | undefined;
  }> = [
    { name: 'unchanged', next: structuredClone(base), expected: undefined },
    {
      name: 'a kind added',
      next: { ...base, syncedKinds: [CONFIGMAP, SECRET] },
      expected: { syncedKinds: [CONFIGMAP, SECRET] },
    },
    {
      name: 'a namespace changed',
      next: { ...base, hostNamespaces: ['other'] },
      expected: { hostNamespaces: ['other'] },
    },
    {
      name: 'a new identity',
      next: { ...base, tenantClusterId: 'id-2' },
      expected: { tenantClusterId: 'id-2' },
    },
    {
      name: 'a removed identity is null (merge patch delete)',
      next: { syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] },
      expected: { tenantClusterId: null },
    },
    {
      name: 'a class kind remembered',
      next: { ...base, fromHostKinds: ['StorageClass'] },
      expected: { fromHostKinds: ['StorageClass'] },
    },
  ];
  it.each(cases)('$name', ({ next, expected }) => {
    expect(rememberedPatch(base, next)).toEqual(expected);
  });

  it('forgets the last class kind with an empty list, and writes nothing while none is remembered', () => {
    const withClasses: Remembered = { ...base, fromHostKinds: ['StorageClass'] };
    expect(rememberedPatch(withClasses, base)).toEqual({ fromHostKinds: [] });
    expect(rememberedPatch(base, { ...base, fromHostKinds: [] })).toBeUndefined();
  });
});

describe('writeRemembered', () => {
  const before: Remembered = { syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] };

  it('writes nothing when unchanged', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster());
    expect(await writeRemembered(hostApi, TENANT, before, structuredClone(before))).toBe(false);
    expect(hostApi.calls).toEqual([]);
  });

  it('patches only the changed fields of the status', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster({ toHost: [CONFIGMAP] }));
    const next = { ...before, syncedKinds: [CONFIGMAP, SECRET], tenantClusterId: 'id-1' };
    expect(await writeRemembered(hostApi, TENANT, before, next)).toBe(true);
    expect(hostApi.callsOf('patchStatus')).toHaveLength(1);
    expect(hostApi.requestCount().writes).toBe(1);
    expect(hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status).toEqual({
      syncedKinds: [CONFIGMAP, SECRET],
      hostNamespaces: [HOST_NS],
      tenantClusterId: 'id-1',
    });
  });
});

describe('ensureFinalizer', () => {
  it('adds the finalizer once, keeping others, then reports false', async () => {
    const hostApi = new MemoryCluster('host').seed({
      ...tenantCluster({}, TENANT, true),
      metadata: { name: TENANT, finalizers: ['other.io/keep'] },
    });
    const read = hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    expect(await ensureFinalizer(hostApi, read)).toBe(true);
    const after = hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    expect(after.metadata.finalizers).toEqual(['other.io/keep', FINALIZER]);
    expect(await ensureFinalizer(hostApi, after)).toBe(false);
    expect(hostApi.callsOf('update')).toHaveLength(1);
  });
});

describe('releaseFinalizer', () => {
  it('re-reads the TenantCluster and removes only its own finalizer', async () => {
    const hostApi = new MemoryCluster('host').seed({
      ...tenantCluster(),
      metadata: {
        name: TENANT,
        deletionTimestamp: '2030-01-01T00:00:00Z',
        finalizers: ['a.io/first', FINALIZER, 'b.io/last'],
      },
    });
    // The pass's own status write moved the resourceVersion since the pass read it.
    await hostApi.patchStatus(TENANT_CLUSTER, undefined, TENANT, { cleanup: { copiesLeft: 0 } });
    await releaseFinalizer(hostApi, TENANT);
    expect(hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.metadata.finalizers).toEqual([
      'a.io/first',
      'b.io/last',
    ]);
    expect(hostApi.callsOf('get')).toHaveLength(1);
  });

  it('does nothing when the finalizer is not there, or the TenantCluster is gone', async () => {
    const hostApi = new MemoryCluster('host').seed({
      ...tenantCluster(),
      metadata: { name: TENANT, finalizers: ['a.io/first'] },
    });
    await releaseFinalizer(hostApi, TENANT);
    await releaseFinalizer(hostApi, 'missing');
    expect(hostApi.requestCount().writes).toBe(0);
  });
});

describe('policyRecheck', () => {
  const spec = { toHost: [CONFIGMAP] };
  const policy = parseSyncPolicy(TENANT, { hostNamespace: HOST_NS, ...spec });
  const cases: Array<{
    name: string;
    now: (tc: KubeObject) => KubeObject | undefined;
    expected: RegExp | undefined;
  }> = [
    { name: 'unchanged', now: (tc) => tc, expected: undefined },
    {
      name: 'an unrelated spec field (deleteGuard) changed',
      now: (tc) => ({
        ...tc,
        spec: {
          ...(tc.spec as Record<string, unknown>),
          deleteGuard: { maxPercent: 10, minCopies: 1 },
        },
      }),
      expected: undefined,
    },
    {
      name: 'hostNamespace changed',
      now: (tc) => ({
        ...tc,
        spec: { ...(tc.spec as Record<string, unknown>), hostNamespace: 'elsewhere' },
      }),
      expected: /changed during the pass/,
    },
    {
      name: 'paused',
      now: (tc) => ({ ...tc, spec: { ...(tc.spec as Record<string, unknown>), paused: true } }),
      expected: /changed during the pass/,
    },
    {
      name: 'toHost changed',
      now: (tc) => ({
        ...tc,
        spec: { ...(tc.spec as Record<string, unknown>), toHost: [CONFIGMAP, SECRET] },
      }),
      expected: /changed during the pass/,
    },
    {
      name: 'became invalid',
      now: (tc) => ({ ...tc, spec: { ...(tc.spec as Record<string, unknown>), paused: 'yes' } }),
      expected: /became invalid/,
    },
    {
      name: 'being deleted',
      now: (tc) => ({
        ...tc,
        metadata: { ...tc.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' },
      }),
      expected: /is being deleted/,
    },
    { name: 'gone', now: () => undefined, expected: /disappeared during the pass/ },
  ];
  it.each(cases)('$name', async ({ now, expected }) => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster(spec));
    const recheck = policyRecheck(hostApi, TENANT, policy);
    const current = hostApi.peek(TENANT_CLUSTER, undefined, TENANT) as KubeObject;
    const next = now(current);
    if (next) hostApi.replace(next);
    else hostApi.remove(TENANT_CLUSTER, undefined, TENANT);
    const reason = await recheck();
    if (expected) expect(reason).toMatch(expected);
    else expect(reason).toBeUndefined();
    expect(hostApi.callsOf('get')).toHaveLength(1);
  });
});
