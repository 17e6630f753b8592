/**
 * Nodes back, pass after pass: a tenant Pod whose host copy is scheduled is bound to a tenant Node
 * of the host node's name, which the tenant gets (and loses once no Pod needs it); a tenant Node
 * the engine did not make is a Skip; a steady pass writes nothing in the tenant; failures are the
 * object's, never the pass's.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../../lib/engine/index.js';
import { ClusterError, type KubeObject, type PassResult } from '../../../../../lib/ports/index.js';
import { clusters, decisionLines, HOST_NS, hn } from '../../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const LATER = Date.parse('2025-01-01T00:00:00Z') + 60 * 60_000;

const tenantPod = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  ...POD,
  metadata: { namespace: 'shop', name, uid: `uid-${name}` },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }], ...spec },
  status: { phase: 'Pending', qosClass: 'BestEffort' },
});

const READY = { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z' };
const hostNode = (name: string, ready = READY): KubeObject => ({
  ...NODE,
  metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
  status: {
    capacity: { cpu: '4', pods: '110' },
    allocatable: { cpu: '4', pods: '110' },
    conditions: [{ ...ready, lastHeartbeatTime: new Date().toISOString() }],
  },
});
const RUNNING = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

function setup(pods: KubeObject[] = [tenantPod('web')], nodes = [hostNode('node-a')]) {
  const { tenantApi, hostApi } = clusters(pods, nodes, { toHost: [POD] });
  const run = (options: { path?: 'full'; dryRun?: boolean } = {}) =>
    runPass({ tenant: 'dev', tenantApi, hostApi, clock: { now: () => LATER }, ...options });
  /** The host schedules the host Pod of `name` on `node`, and its kubelet runs it. */
  const schedule = (name: string, node: string) => {
    const pod = hostApi.peek(POD, HOST_NS, hn('shop', name));
    if (!pod) throw new Error(`no host Pod ${name}`);
    hostApi.replace({ ...pod, spec: { ...(pod.spec as object), nodeName: node }, status: RUNNING });
  };
  const nodeOf = (name: string) =>
    (tenantApi.peek(POD, 'shop', name)?.spec as { nodeName?: string } | undefined)?.nodeName;
  return { tenantApi, hostApi, run, schedule, nodeOf };
}

const lines = (result: PassResult) => decisionLines(result.decisions);

describe('nodes back', () => {
  it('binds the tenant Pod to a tenant Node of its host node, then writes nothing', async () => {
    const { tenantApi, hostApi, run, schedule, nodeOf } = setup();
    await run();
    schedule('web', 'node-a');
    const back = await run({ path: 'full' });
    expect(back.errors).toEqual([]);
    expect(lines(back)).toEqual(['Create Node /node-a -> node-a']);
    expect(nodeOf('web')).toBe('node-a');
    expect(tenantApi.callsOf('bind')).toHaveLength(1);
    // The Node, the binding and the Pod's status.
    expect(back.requests.tenant.writes).toBe(3);
    expect(back.requests.host.writes).toBe(0);
    expect(hostApi.callsOf('get').filter((c) => c.kind === 'Node')).toHaveLength(1);
    expect(tenantApi.peek(NODE, undefined, 'node-a')).toMatchObject({
      metadata: {
        labels: {
          'kubernetes.io/hostname': 'node-a',
          'kubernetes.io/os': 'linux',
          'app.kubernetes.io/managed-by': 'tenantplane',
          'tenantplane.io/tenant': 'dev',
        },
      },
      status: {
        capacity: { cpu: '4', pods: '110' },
        conditions: [expect.objectContaining({ type: 'Ready', status: 'True' })],
      },
    });

    for (const path of [undefined, 'full' as const, undefined]) {
      const steady = await run(path ? { path } : {});
      expect({ path, decisions: steady.decisions, errors: steady.errors }).toEqual({
        path,
        decisions: [],
        errors: [],
      });
      expect({ path, writes: steady.requests.tenant.writes }).toEqual({ path, writes: 0 });
    }
  });

  it('the tenant Node follows its host node’s Ready condition, and only then is written', async () => {
    const { tenantApi, hostApi, run, schedule } = setup();
    await run();
    schedule('web', 'node-a');
    await run({ path: 'full' });
    hostApi.replace({
      ...hostNode('node-a', { ...READY, status: 'False' }),
      metadata: (hostApi.peek(NODE, undefined, 'node-a') as KubeObject).metadata,
    });
    const changed = await run({ path: 'full' });
    expect(lines(changed)).toEqual(['Update Node /node-a -> node-a']);
    expect(changed.decisions[0]?.reason).toContain('(Ready)');
    expect(changed.requests.tenant.writes).toBe(1);
    expect(tenantApi.peek(NODE, undefined, 'node-a')?.status).toMatchObject({
      conditions: [expect.objectContaining({ type: 'Ready', status: 'False' })],
    });
  });

  it('a Node no tenant Pod needs any more is removed; one a tenant Pod is still bound to stays', async () => {
    const { tenantApi, run, schedule } = setup(
      [tenantPod('web'), tenantPod('api')],
      [hostNode('node-a'), hostNode('node-b')],
    );
    await run();
    schedule('web', 'node-a');
    schedule('api', 'node-b');
    await run({ path: 'full' });
    expect(tenantApi.objects(NODE).map((n) => n.metadata.name)).toEqual(['node-a', 'node-b']);
    // A tenant Pod this TenantCluster does not sync (of kube-system here), bound to node-b, keeps it.
    tenantApi.seed({
      ...tenantPod('other', { nodeName: 'node-b' }),
      metadata: { namespace: 'kube-system', name: 'other' },
    });
    tenantApi.remove(POD, 'shop', 'web');
    tenantApi.remove(POD, 'shop', 'api');
    // The pass that deletes the host Pods lists them again after its writes: node-a goes.
    const gone = await run();
    expect(gone.errors).toEqual([]);
    expect(lines(gone).filter((l) => l.includes('Node'))).toEqual([
      'Delete Node /node-a -> node-a',
    ]);
    const later = await run({ path: 'full' });
    expect(later.decisions).toEqual([]);
    expect(tenantApi.objects(NODE).map((n) => n.metadata.name)).toEqual(['node-b']);
  });

  it('never touches a tenant Node the engine did not make: a Skip, and the Pod stays unbound', async () => {
    const { tenantApi, run, schedule, nodeOf } = setup();
    const own = { ...NODE, metadata: { name: 'node-a', labels: { mine: 'yes' } } };
    tenantApi.seed(own);
    await run();
    schedule('web', 'node-a');
    const back = await run({ path: 'full' });
    expect(back.errors).toEqual([]);
    expect(lines(back)).toEqual(['Skip Node /node-a -> node-a']);
    expect(back.decisions[0]?.reason).toContain('tenantplane did not make');
    expect(nodeOf('web')).toBeUndefined();
    expect(tenantApi.peek(NODE, undefined, 'node-a')?.metadata.labels).toEqual({ mine: 'yes' });
    expect(tenantApi.callsOf('bind')).toHaveLength(0);
  });

  it('a tenant Pod bound to another node is a Skip: a binding cannot change', async () => {
    const { run, schedule } = setup([tenantPod('web', { nodeName: 'node-z' })]);
    await run();
    schedule('web', 'node-a');
    const back = await run({ path: 'full' });
    expect(lines(back)).toEqual([
      'Create Node /node-a -> node-a',
      `Skip Pod shop/web -> ${hn('shop', 'web')}`,
    ]);
    expect(back.errors).toEqual([]);
  });

  it('a refused binding is an error of the Pod; the pass goes on, the next pass binds it', async () => {
    const { tenantApi, run, schedule, nodeOf } = setup();
    await run();
    schedule('web', 'node-a');
    tenantApi.failWhen((c) =>
      c.method === 'bind' ? new ClusterError('Forbidden', 'no pods/binding') : undefined,
    );
    const refused = await run({ path: 'full' });
    expect(refused.errors).toEqual([
      expect.objectContaining({
        kind: 'Pod',
        reason: 'Forbidden',
        tenantRef: { namespace: 'shop', name: 'web' },
      }),
    ]);
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
    tenantApi.clearFailures();
    const next = await run();
    expect(next.path).not.toBe('resumed');
    expect(nodeOf('web')).toBe('node-a');
  });

  it('a refused Node write is that Node’s error, and no Pod is bound to the missing Node', async () => {
    const { tenantApi, run, schedule, nodeOf } = setup();
    await run();
    schedule('web', 'node-a');
    tenantApi.failWhen((c) =>
      c.method === 'create' && c.kind === 'Node'
        ? new ClusterError('Forbidden', 'no nodes')
        : undefined,
    );
    const refused = await run({ path: 'full' });
    expect(refused.errors).toEqual([
      expect.objectContaining({ kind: 'Node', reason: 'Forbidden' }),
    ]);
    expect(nodeOf('web')).toBeUndefined();
    expect(tenantApi.peek(POD, 'shop', 'web')?.status).toMatchObject({ phase: 'Running' });
  });

  it('a host node read that fails is an error of the Node kind, never of the pass', async () => {
    const { hostApi, run, schedule } = setup();
    await run();
    schedule('web', 'node-a');
    hostApi.failWhen((c) =>
      c.kind === 'Node' ? new ClusterError('Forbidden', 'nodes is forbidden') : undefined,
    );
    const refused = await run({ path: 'full' });
    expect(refused.errors).toEqual([
      expect.objectContaining({ kind: 'Node', reason: 'Forbidden' }),
    ]);
  });

  it('a dry run decides the Node and binds nothing', async () => {
    const { tenantApi, run, schedule, nodeOf } = setup();
    await run();
    schedule('web', 'node-a');
    const dry = await run({ path: 'full', dryRun: true });
    expect(lines(dry)).toEqual(['Create Node /node-a -> node-a']);
    expect(tenantApi.callsOf('bind')).toHaveLength(0);
    expect(tenantApi.callsOf('create')).toHaveLength(0);
    expect(tenantApi.objects(NODE)).toEqual([]);
    expect(nodeOf('web')).toBeUndefined();
  });

  it('reads the host nodes its Pods run on by name, never a LIST of every host node', async () => {
    const count = 17;
    const names = Array.from({ length: count }, (_, i) => `p${String(i).padStart(2, '0')}`);
    const { tenantApi, hostApi, run, schedule } = setup(
      names.map((n) => tenantPod(n)),
      [...names.map((n) => hostNode(`node-${n}`)), hostNode('node-other')],
    );
    await run();
    for (const n of names) schedule(n, `node-${n}`);
    const back = await run({ path: 'full' });
    expect(back.errors).toEqual([]);
    expect(tenantApi.objects(NODE)).toHaveLength(count);
    const nodeCalls = hostApi.calls.filter((c) => c.kind === 'Node');
    expect(nodeCalls.filter((c) => c.method === 'list')).toEqual([]);
    expect(new Set(nodeCalls.map((c) => c.name))).toEqual(new Set(names.map((n) => `node-${n}`)));
    expect(tenantApi.objects(NODE).map((n) => n.metadata.name)).not.toContain('node-other');
  });
});

describe('the Node reads read ahead', () => {
  it('go out while the Pod kind takes in its tenant pages, once each, and decide as before', async () => {
    const pods = ['a', 'b', 'c', 'd', 'e'].map((n) => tenantPod(n));
    const { tenantApi, hostApi } = clusters(pods, [hostNode('node-a')], { toHost: [POD] });
    const run = (path?: 'full') =>
      runPass({
        tenant: 'dev',
        tenantApi,
        hostApi,
        clock: { now: () => LATER },
        budget: { pageSize: 2 },
        ...(path ? { path } : {}),
      });
    await run();
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      const pod = hostApi.peek(POD, HOST_NS, hn('shop', name)) as KubeObject;
      hostApi.replace({
        ...pod,
        spec: { ...(pod.spec as object), nodeName: 'node-a' },
        status: RUNNING,
      });
    }
    const order: string[] = [];
    const log = (side: string, api: typeof hostApi) => {
      const list = api.list.bind(api);
      const get = api.get.bind(api);
      api.list = async (kind, options) => {
        order.push(`${side} list ${kind.kind}${options?.continueToken ? ' next' : ''}`);
        return list(kind, options);
      };
      api.get = async (kind, namespace, name) => {
        order.push(`${side} get ${kind.kind}`);
        return get(kind, namespace, name);
      };
    };
    log('tenant', tenantApi);
    log('host', hostApi);

    const back = await run('full');
    expect(back.errors).toEqual([]);
    expect(lines(back)).toEqual(['Create Node /node-a -> node-a']);
    // Without the read-ahead, both Node reads follow the Pod kind's last tenant page.
    const lastPage = order.lastIndexOf('tenant list Pod next');
    expect(order.indexOf('tenant list Node')).toBeGreaterThan(-1);
    expect(order.indexOf('tenant list Node')).toBeLessThan(lastPage);
    expect(order.indexOf('host get Node')).toBeLessThan(lastPage);
    expect(order.filter((o) => o === 'tenant list Node')).toHaveLength(1);
    expect(order.filter((o) => o === 'host get Node')).toHaveLength(1);
    expect(tenantApi.callsOf('bind')).toHaveLength(5);
  });
});
