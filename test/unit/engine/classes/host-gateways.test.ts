/**
 * Gateways from the host, pass after pass on the fakes: the host Gateways the policy's
 * `gateways.parents` lists appear in the tenant with their status and no other is read; a steady
 * pass writes nothing; a namespace the tenant lacks is a Skip and nothing is made; a failed read
 * of a host Gateway is an error that deletes nothing; the kind is remembered beside the class kinds
 * and forgotten once its copies are gone.
 */
import { describe, expect, it } from '@jest/globals';
import { GATEWAY } from '../../../../lib/engine/classes/gateway-copy.js';
import { runPass } from '../../../../lib/engine/index.js';
import { ClusterError, type KubeObject, type PassResult } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { clusters, TENANT } from '../support.js';

const TC = { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const gateway = (name: string, status: Record<string, unknown> = {}): KubeObject => ({
  ...GATEWAY,
  metadata: { namespace: 'gateways', name },
  spec: { gatewayClassName: 'example', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
  status,
});
const PROGRAMMED = { addresses: [{ type: 'IPAddress', value: '192.0.2.1' }] };
const HOST = [
  gateway('shared', PROGRAMMED),
  gateway('internal'),
  { ...SC, metadata: { name: 'fast' }, provisioner: 'csi.example.com' },
];
const parents = (...names: string[]) => names.map((name) => ({ namespace: 'gateways', name }));
const GATEWAYS = { gateways: { parents: parents('shared') } };

function setup(spec: Record<string, unknown> = { workloads: GATEWAYS }, withNamespace = true) {
  const tenantState = withNamespace ? [{ ...NAMESPACE, metadata: { name: 'gateways' } }] : [];
  const c = clusters(tenantState, HOST, spec);
  const pass = (dryRun = false) =>
    runPass({ tenant: TENANT, tenantApi: c.tenantApi, hostApi: c.hostApi, dryRun });
  return { ...c, pass };
}

const lines = (run: PassResult) =>
  run.decisions
    .filter((d) => d.kind === 'Gateway')
    .map((d) => `${d.action} ${d.tenantRef.namespace}/${d.tenantRef.name}`)
    .sort();
const shown = (tenantApi: MemoryCluster) =>
  tenantApi.objects(GATEWAY).map((g) => `${g.metadata.namespace}/${g.metadata.name}`);
const remembered = (hostApi: MemoryCluster) =>
  (hostApi.peek(TC, undefined, TENANT)?.status as { fromHostKinds?: string[] } | undefined)
    ?.fromHostKinds;
function setSpec(hostApi: MemoryCluster, spec: Record<string, unknown>) {
  const tc = hostApi.peek(TC, undefined, TENANT) as KubeObject;
  hostApi.replace({ ...tc, spec: { ...(tc.spec as object), ...spec } });
}

describe('Gateways from the host', () => {
  it('shows the listed host Gateway with its status and reads no other; a steady pass writes nothing', async () => {
    const { tenantApi, hostApi, pass } = setup();
    const first = await pass();
    expect(first.errors).toEqual([]);
    expect(lines(first)).toEqual(['Create gateways/shared', 'Update gateways/shared']);
    expect(shown(tenantApi)).toEqual(['gateways/shared']);
    expect(tenantApi.peek(GATEWAY, 'gateways', 'shared')?.status).toEqual(PROGRAMMED);
    expect(remembered(hostApi)).toEqual(['Gateway']);
    const hostReads = hostApi.calls.filter((call) => call.kind === 'Gateway');
    expect(hostReads.map((call) => `${call.method} ${call.namespace}/${call.name}`)).toEqual([
      'get gateways/shared',
    ]);
    const writes = tenantApi.requestCount().writes;
    const steady = await pass();
    expect(lines(steady)).toEqual([]);
    expect(tenantApi.requestCount().writes).toBe(writes);
  });

  it('makes no tenant namespace: a Gateway whose namespace the tenant lacks is a Skip', async () => {
    const { tenantApi, pass } = setup({ workloads: GATEWAYS }, false);
    const run = await pass();
    expect(run.errors).toEqual([]);
    expect(run.decisions.filter((d) => d.kind === 'Gateway')).toEqual([
      expect.objectContaining({
        action: 'Skip',
        tenantRef: { namespace: 'gateways', name: 'shared' },
        reason: expect.stringContaining('the tenant has no namespace "gateways"'),
      }),
    ]);
    expect(tenantApi.requestCount().writes).toBe(0);
  });

  it('a failed read of a host Gateway is an error: its copy stays and the kind is remembered', async () => {
    const { tenantApi, hostApi, pass } = setup();
    await pass();
    hostApi.failWhen((call) =>
      call.method === 'get' && call.kind === 'Gateway'
        ? new ClusterError('Forbidden', 'gateways is forbidden', { status: 403 })
        : undefined,
    );
    const run = await pass();
    const ref = { namespace: 'gateways', name: 'shared' };
    expect(run.errors).toEqual([
      expect.objectContaining({ kind: 'Gateway', reason: 'Forbidden', tenantRef: ref }),
    ]);
    expect(run.complete).toBe(false);
    expect(lines(run)).toEqual([]);
    expect(shown(tenantApi)).toEqual(['gateways/shared']);
    expect(remembered(hostApi)).toEqual(['Gateway']);
  });

  it('is remembered beside the class kinds, and forgotten once the policy lists none and its copies are gone', async () => {
    const fromHost = { storageClasses: { names: ['fast'] } };
    const { tenantApi, hostApi, pass } = setup({ workloads: GATEWAYS, fromHost });
    await pass();
    expect(remembered(hostApi)).toEqual(['StorageClass', 'Gateway']);
    setSpec(hostApi, { workloads: { gateways: { parents: parents('internal-not-here') } } });
    const moved = await pass();
    expect(lines(moved)).toEqual(['Delete gateways/shared', 'Skip gateways/internal-not-here']);
    setSpec(hostApi, { workloads: {} });
    const none = await pass();
    expect(lines(none)).toEqual([]);
    expect(shown(tenantApi)).toEqual([]);
    expect(remembered(hostApi)).toEqual(['StorageClass']);
    // Neither side is asked about Gateways any more.
    const gatewayCalls = () =>
      [...hostApi.calls, ...tenantApi.calls].filter((c) => c.kind === 'Gateway').length;
    const before = gatewayCalls();
    await pass();
    expect(gatewayCalls()).toBe(before);
  });

  it('a Gateway allowed for one listener it lacks is a Skip naming the listener; refs are namespace and name only', async () => {
    const workloads = {
      gateways: { parents: [{ namespace: 'gateways', name: 'shared', sectionName: 'https' }] },
    };
    const { tenantApi, pass } = setup({ workloads });
    const run = await pass();
    expect(run.decisions.filter((d) => d.kind === 'Gateway')).toEqual([
      expect.objectContaining({
        action: 'Skip',
        tenantRef: { namespace: 'gateways', name: 'shared' },
        hostRef: { namespace: 'gateways', name: 'shared' },
        reason: expect.stringContaining('allows only listeners https of Gateway gateways/shared'),
      }),
    ]);
    expect(tenantApi.requestCount().writes).toBe(0);
  });

  it('a dry run decides and writes nothing in the tenant', async () => {
    const { tenantApi, pass } = setup();
    const run = await pass(true);
    expect(lines(run)).toEqual(['Create gateways/shared', 'Update gateways/shared']);
    expect(run.decisions.every((d) => d.dryRun)).toBe(true);
    expect(tenantApi.requestCount().writes).toBe(0);
  });

  it('a policy that lists no Gateway reads none', async () => {
    const c = clusters([], HOST, {});
    await runPass({ tenant: TENANT, tenantApi: c.tenantApi, hostApi: c.hostApi });
    const calls = [...c.tenantApi.calls, ...c.hostApi.calls].filter(
      (call) => call.kind === 'Gateway',
    );
    expect(calls).toEqual([]);
  });
});
