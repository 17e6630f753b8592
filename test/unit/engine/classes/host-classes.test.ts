/**
 * Classes from the host, pass after pass: the host classes `spec.fromHost` selects appear in the
 * tenant as read-only copies, follow their host class, go when the policy stops selecting them
 * or the host class is gone; a tenant class the engine did not make is never touched; a steady
 * pass writes nothing in the tenant; failures are the pass's errors, never its end.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { HostClassKeys, Labels } from '../../../../lib/engine/names/metadata.js';
import { ClusterError, type KindRef, type KubeObject } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { clusters, TENANT } from '../support.js';

const SC: KindRef = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const IC: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass' };
const PC: KindRef = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' };
const RC: KindRef = { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass' };
const TC: KindRef = { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' };

const sc = (name: string, labels: Record<string, string> = {}, body = {}): KubeObject => ({
  ...SC,
  metadata: { name, labels },
  provisioner: 'csi.example.com',
  reclaimPolicy: 'Delete',
  ...body,
});
const HOST_CLASSES: KubeObject[] = [
  sc('fast'),
  sc('gold', { offer: 'dev' }),
  sc('private'),
  { ...IC, metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
  { ...PC, metadata: { name: 'tenant-high' }, value: 1000, preemptionPolicy: 'Never' },
  { ...RC, metadata: { name: 'gvisor', labels: { sandbox: 'yes' } }, handler: 'runsc' },
];
const FROM_HOST = {
  storageClasses: { names: ['fast'], labelSelector: 'offer=dev' },
  ingressClasses: { names: ['nginx'] },
  priorityClasses: { names: ['tenant-high'] },
  runtimeClasses: { labelSelector: 'sandbox' },
};

function setup(tenantState: KubeObject[] = [], fromHost: unknown = FROM_HOST) {
  const c = clusters(tenantState, HOST_CLASSES, { fromHost });
  const pass = (dryRun = false) =>
    runPass({ tenant: TENANT, tenantApi: c.tenantApi, hostApi: c.hostApi, dryRun });
  return { ...c, pass };
}

/** `Action Kind name` lines of the class Decisions, sorted. */
function classLines(
  decisions: readonly { action: string; kind: string; tenantRef: { name: string } }[],
) {
  return decisions
    .filter((d) => d.kind.endsWith('Class'))
    .map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)
    .sort();
}

/** `Kind name` of the tenant's classes. */
function tenantClasses(tenantApi: MemoryCluster): string[] {
  return [SC, IC, PC, RC].flatMap((k) =>
    tenantApi.objects(k).map((o) => `${o.kind} ${o.metadata.name}`),
  );
}

/** Edits the spec of the TenantCluster on the (fake) host. */
function setSpec(hostApi: MemoryCluster, spec: Record<string, unknown>) {
  const tc = hostApi.peek(TC, undefined, TENANT) as KubeObject;
  hostApi.replace({ ...tc, spec: { ...(tc.spec as object), ...spec } });
}

const fromHostKinds = (hostApi: MemoryCluster) =>
  (hostApi.peek(TC, undefined, TENANT)?.status as { fromHostKinds?: string[] } | undefined)
    ?.fromHostKinds;

describe('classes from the host', () => {
  it('copies the named and selected host classes of every kind; a steady pass writes nothing in the tenant', async () => {
    const { tenantApi, hostApi, pass } = setup();
    const first = await pass();
    expect(first.errors).toEqual([]);
    expect(classLines(first.decisions)).toEqual([
      'Create IngressClass nginx',
      'Create PriorityClass tenant-high',
      'Create RuntimeClass gvisor',
      'Create StorageClass fast',
      'Create StorageClass gold',
    ]);
    expect(first.decisions.find((d) => d.tenantRef.name === 'gold')?.reason).toBe(
      'host StorageClass "gold" is selected by spec.fromHost.storageClasses (by labelSelector "offer=dev"): a read-only copy in the tenant',
    );
    const copy = tenantApi.peek(SC, undefined, 'fast') as KubeObject;
    expect(copy).toMatchObject({ provisioner: 'csi.example.com', reclaimPolicy: 'Delete' });
    expect(copy.metadata.labels).toEqual({
      [Labels.ManagedBy]: 'tenantplane',
      [Labels.Tenant]: TENANT,
      [HostClassKeys.FromHost]: 'true',
    });
    expect(tenantApi.peek(PC, undefined, 'tenant-high')).toMatchObject({ value: 1000 });
    expect(tenantApi.peek(SC, undefined, 'private')).toBeUndefined();
    // Remembered before the first class was written.
    expect(fromHostKinds(hostApi)).toEqual([
      'StorageClass',
      'IngressClass',
      'PriorityClass',
      'RuntimeClass',
    ]);

    const tenantWrites = tenantApi.requestCount().writes;
    const steady = await pass();
    expect(steady.errors).toEqual([]);
    expect(classLines(steady.decisions)).toEqual([]);
    expect(tenantApi.requestCount().writes).toBe(tenantWrites);
    expect(steady.requests.tenant.writes).toBe(0);
    // One LIST per class kind on each side.
    const classLists = (api: MemoryCluster) =>
      api.callsOf('list').filter((call) => call.kind.endsWith('Class')).length;
    expect({ tenant: classLists(tenantApi), host: classLists(hostApi) }).toEqual({
      tenant: 8,
      host: 8,
    });
  });

  it('never touches a tenant class of the same name it did not make: a Skip, every pass', async () => {
    const own = { ...sc('fast', { mine: 'yes' }), provisioner: 'tenant.example.com' };
    const { tenantApi, pass } = setup([own]);
    const before = tenantApi.peek(SC, undefined, 'fast');
    for (let i = 0; i < 2; i++) {
      const run = await pass();
      expect(run.errors).toEqual([]);
      const skip = run.decisions.find(
        (d) => d.kind === 'StorageClass' && d.tenantRef.name === 'fast',
      );
      expect(skip).toMatchObject({ action: 'Skip', tenantRef: { namespace: '', name: 'fast' } });
      expect(skip?.reason).toMatch(
        /the tenant has a StorageClass "fast" that tenantplane did not make for this tenant: it is left untouched/,
      );
    }
    expect(tenantApi.peek(SC, undefined, 'fast')).toEqual(before);
  });

  it('follows the host class: an update, a replacement for an immutable field, a delete when it is gone', async () => {
    const { tenantApi, hostApi, pass } = setup();
    await pass();
    hostApi.replace({ ...sc('fast', { tier: 'gold' }), allowVolumeExpansion: true });
    hostApi.replace(sc('gold', { offer: 'dev' }, { provisioner: 'other.example.com' }));
    hostApi.remove(IC, undefined, 'nginx');
    const uidBefore = tenantApi.peek(SC, undefined, 'gold')?.metadata.uid;
    const run = await pass();
    expect(run.errors).toEqual([]);
    expect(classLines(run.decisions)).toEqual([
      'Create StorageClass gold',
      'Delete IngressClass nginx',
      'Delete StorageClass gold',
      // Still named: the policy names a class the host no longer has.
      'Skip IngressClass nginx',
      'Update StorageClass fast',
    ]);
    const reasons = Object.fromEntries(
      run.decisions.map((d) => [`${d.action} ${d.tenantRef.name}`, d.reason]),
    );
    expect(reasons['Update fast']).toBe(
      'host StorageClass "fast" changed (labels, allowVolumeExpansion): its tenant copy follows',
    );
    expect(reasons['Delete gold']).toMatch(
      /^replacement: host StorageClass "gold" changed provisioner/,
    );
    expect(reasons['Delete nginx']).toBe(
      'host IngressClass "nginx" is gone: its tenant copy goes too',
    );
    expect(tenantApi.peek(SC, undefined, 'fast')).toMatchObject({ allowVolumeExpansion: true });
    const gold = tenantApi.peek(SC, undefined, 'gold');
    expect(gold?.provisioner).toBe('other.example.com');
    expect(gold?.metadata.uid).not.toBe(uidBefore);
    expect(tenantApi.peek(IC, undefined, 'nginx')).toBeUndefined();
  });

  it('deletes the copies the policy stops selecting, then forgets the kind', async () => {
    const { tenantApi, hostApi, pass } = setup();
    await pass();
    setSpec(hostApi, {
      fromHost: {
        storageClasses: { names: ['fast'] },
        runtimeClasses: { labelSelector: 'sandbox' },
      },
    });
    const run = await pass();
    expect(run.errors).toEqual([]);
    expect(classLines(run.decisions)).toEqual([
      'Delete IngressClass nginx',
      'Delete PriorityClass tenant-high',
      'Delete StorageClass gold',
    ]);
    expect(run.decisions.find((d) => d.tenantRef.name === 'gold')?.reason).toBe(
      'spec.fromHost.storageClasses no longer selects host StorageClass "gold": its tenant copy goes',
    );
    expect(run.decisions.find((d) => d.tenantRef.name === 'nginx')?.reason).toBe(
      'spec.fromHost no longer has ingressClasses: the tenant copy of host IngressClass "nginx" goes',
    );
    expect(tenantClasses(tenantApi)).toEqual(['StorageClass fast', 'RuntimeClass gvisor']);
    expect(fromHostKinds(hostApi)).toEqual(['StorageClass', 'RuntimeClass']);

    setSpec(hostApi, { fromHost: undefined });
    const last = await pass();
    expect(classLines(last.decisions)).toEqual([
      'Delete RuntimeClass gvisor',
      'Delete StorageClass fast',
    ]);
    expect(tenantClasses(tenantApi)).toEqual([]);
    expect(fromHostKinds(hostApi)).toEqual([]);
    // Forgotten: later passes no longer read classes at all.
    const lists = tenantApi.callsOf('list').length;
    await pass();
    expect(
      tenantApi
        .callsOf('list')
        .slice(lists)
        .some((c) => c.kind.endsWith('Class')),
    ).toBe(false);
  });

  it('a named class the host does not have is a Skip that says so', async () => {
    const { pass } = setup([], { storageClasses: { names: ['fast', 'missing'] } });
    const run = await pass();
    expect(classLines(run.decisions)).toEqual([
      'Create StorageClass fast',
      'Skip StorageClass missing',
    ]);
    expect(run.decisions.find((d) => d.tenantRef.name === 'missing')?.reason).toBe(
      'spec.fromHost.storageClasses names StorageClass "missing", which the host does not have: nothing to copy',
    );
  });

  it('a refused create is that class’s error; the other classes are still copied', async () => {
    const { tenantApi, pass } = setup();
    tenantApi.failWhen((call) =>
      call.method === 'create' && call.kind === 'PriorityClass'
        ? new ClusterError('Forbidden', 'priorityclasses is forbidden', { status: 403 })
        : undefined,
    );
    const run = await pass();
    expect(run.errors).toEqual([
      expect.objectContaining({
        kind: 'PriorityClass',
        reason: 'Forbidden',
        tenantRef: { namespace: '', name: 'tenant-high' },
      }),
    ]);
    expect(tenantClasses(tenantApi)).toEqual([
      'StorageClass fast',
      'StorageClass gold',
      'IngressClass nginx',
      'RuntimeClass gvisor',
    ]);
  });

  it('a failed listing leaves the kind for the next pass: no deletes, still remembered', async () => {
    const { tenantApi, hostApi, pass } = setup();
    await pass();
    setSpec(hostApi, { fromHost: { storageClasses: { names: ['fast'] } } });
    hostApi.failWhen((call) =>
      call.method === 'list' && call.kind === 'StorageClass'
        ? new ClusterError('Forbidden', 'storageclasses is forbidden', { status: 403 })
        : undefined,
    );
    const run = await pass();
    expect(run.complete).toBe(false);
    expect(run.errors).toEqual([
      expect.objectContaining({ kind: 'StorageClass', reason: 'Forbidden' }),
    ]);
    // The other kinds left the policy and are cleaned up; StorageClass waits, gold included.
    expect(classLines(run.decisions)).toEqual([
      'Delete IngressClass nginx',
      'Delete PriorityClass tenant-high',
      'Delete RuntimeClass gvisor',
    ]);
    expect(tenantClasses(tenantApi)).toEqual(['StorageClass fast', 'StorageClass gold']);
    expect(fromHostKinds(hostApi)).toEqual(['StorageClass']);
  });

  it('a dry run decides what a pass would do and writes nothing in the tenant', async () => {
    const { tenantApi, pass } = setup();
    const run = await pass(true);
    expect(classLines(run.decisions)).toHaveLength(5);
    expect(run.decisions.every((d) => d.dryRun)).toBe(true);
    expect(tenantApi.requestCount().writes).toBe(0);
    expect(tenantClasses(tenantApi)).toEqual([]);
  });

  it('a policy without fromHost reads no classes', async () => {
    const c = clusters([], HOST_CLASSES, {});
    await runPass({ tenant: TENANT, tenantApi: c.tenantApi, hostApi: c.hostApi });
    const classCalls = [...c.tenantApi.calls, ...c.hostApi.calls].filter((call) =>
      call.kind.endsWith('Class'),
    );
    expect(classCalls).toEqual([]);
    expect(c.hostApi.peek(TC, undefined, TENANT)?.status).not.toHaveProperty('fromHostKinds');
  });
});
