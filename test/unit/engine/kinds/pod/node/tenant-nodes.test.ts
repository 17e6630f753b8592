/**
 * syncTenantNodes on its own, on the in-memory fakes: which tenant Nodes it creates, follows and
 * removes for the host Pods given, and the set of Nodes tenant Pods may then be bound to; the
 * write budget, a Node being deleted, a host node gone, the outcomes of a delete, and failed
 * reads. The Nodes and bindings through whole passes are in ../pod/binding.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { Budget } from '../../../../../../lib/engine/bounds/budget.js';
import type { PassContext } from '../../../../../../lib/engine/context/pass-context.js';
import { tenantNode } from '../../../../../../lib/engine/kinds/pod/node/node-copy.js';
import { syncTenantNodes } from '../../../../../../lib/engine/kinds/pod/node/tenant-nodes.js';
import { ClusterError, type KubeObject, NODE, POD } from '../../../../../../lib/ports/index.js';
import { MemoryCluster, type MemoryClusterOptions } from '../../../../fakes/memory-cluster.js';
import { decisionLines, HOST_NS, passContext, TENANT } from '../../../support.js';

const READY = { type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T00:00:00Z' };

const hostNode = (
  name: string,
  ready = READY,
  labels: Record<string, string> = {},
): KubeObject => ({
  ...NODE,
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  status: {
    capacity: { cpu: '4', pods: '110' },
    allocatable: { cpu: '4', pods: '110' },
    conditions: [ready],
  },
});

/** The tenant Node the engine made for `node` (of this tenant), as a previous pass left it. */
const ourNode = (node: KubeObject, more: Partial<KubeObject['metadata']> = {}): KubeObject => {
  const made = tenantNode(node, TENANT);
  return { ...made, metadata: { ...made.metadata, ...more } };
};

/** A tenant Node the engine did not make. */
const foreignNode = (name: string): KubeObject => ({
  ...NODE,
  metadata: { name, labels: { mine: 'yes' } },
});

/** A host Pod of the tenant, scheduled on `node` unless it is undefined. */
const hostPod = (name: string, node?: string): KubeObject => ({
  ...POD,
  metadata: { namespace: HOST_NS, name },
  spec: node === undefined ? {} : { nodeName: node },
});

function setup(
  state: {
    hostNodes?: KubeObject[];
    tenantNodes?: KubeObject[];
    tenantPods?: KubeObject[];
    budget?: Partial<Budget>;
    tenant?: MemoryClusterOptions;
  } = {},
) {
  const hostApi = new MemoryCluster('host').seed(...(state.hostNodes ?? []));
  const tenantApi = new MemoryCluster('tenant', state.tenant).seed(
    ...(state.tenantNodes ?? []),
    ...(state.tenantPods ?? []),
  );
  const ctx: PassContext = passContext({
    hostApi,
    tenantApi,
    ...(state.budget ? { budget: state.budget } : {}),
  });
  const sync = async (pods: KubeObject[]) => [...(await syncTenantNodes(ctx, pods))].sort();
  const lines = () => decisionLines(ctx.ledger.recorder.decisions);
  const nodeNames = () => tenantApi.objects(NODE).map((n) => n.metadata.name);
  const writes = () =>
    tenantApi.calls
      .filter((c) => !['get', 'list'].includes(c.method))
      .map((c) => `${c.method} ${c.name}`);
  return { hostApi, tenantApi, ctx, sync, lines, nodeNames, writes };
}

describe('syncTenantNodes: creates and follows', () => {
  it('creates one tenant Node per host node the Pods run on, reading only those host nodes', async () => {
    const t = setup({ hostNodes: ['node-a', 'node-b', 'node-c'].map((n) => hostNode(n)) });
    const bindable = await t.sync([
      hostPod('web', 'node-b'),
      hostPod('api', 'node-a'),
      hostPod('db', 'node-a'),
      hostPod('pending'),
    ]);
    expect(bindable).toEqual(['node-a', 'node-b']);
    expect(t.lines()).toEqual(['Create Node /node-a -> node-a', 'Create Node /node-b -> node-b']);
    expect(t.ctx.ledger.recorder.decisions[0]?.reason).toBe(
      'Pods of the tenant run on host node "node-a": the tenant gets a Node of that name to show it',
    );
    expect(
      t.tenantApi
        .objects(NODE)
        .map(({ metadata: { name, labels }, status }) => ({ name, labels, status })),
    ).toEqual(
      ['node-a', 'node-b'].map((n) => {
        const { metadata, status } = tenantNode(hostNode(n), TENANT);
        return { name: metadata.name, labels: metadata.labels, status };
      }),
    );
    expect(t.hostApi.calls.map((c) => `${c.method} ${c.name}`).sort()).toEqual([
      'get node-a',
      'get node-b',
    ]);
    expect(t.ctx.ledger.errors.errors).toEqual([]);
  });

  it('an apiserver that takes no status on create: the status follows in a patch', async () => {
    const noStatus = { normalize: (o: KubeObject) => void delete o.status };
    const t = setup({ hostNodes: [hostNode('node-a')], tenant: noStatus });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
    expect(t.writes()).toEqual(['create node-a', 'patchStatus node-a']);
    expect(t.tenantApi.peek(NODE, undefined, 'node-a')?.status).toEqual(
      tenantNode(hostNode('node-a'), TENANT).status,
    );
  });

  it('a write budget of one: the Node is created, its status waits, Pods may be bound to it', async () => {
    const noStatus = { normalize: (o: KubeObject) => void delete o.status };
    const t = setup({
      hostNodes: [hostNode('node-a')],
      tenant: noStatus,
      budget: { maxWrites: 1 },
    });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
    expect(t.writes()).toEqual(['create node-a']);
  });

  it('a write budget spent: no Node is created, none is bindable, no Decision yet', async () => {
    const t = setup({ hostNodes: [hostNode('node-a')], budget: { maxWrites: 0 } });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual([]);
    expect(t.lines()).toEqual([]);
    expect(t.writes()).toEqual([]);
    expect(t.ctx.scope.bounds.deferred).toBe(1);
  });

  const NOT_READY = { ...READY, status: 'False', lastTransitionTime: '2030-01-01T00:01:00Z' };
  const follows: Array<[string, KubeObject, string[], string]> = [
    ['its Ready condition', hostNode('node-a', NOT_READY), ['patchStatus node-a'], '(Ready)'],
    [
      'a copied label',
      hostNode('node-a', READY, { 'kubernetes.io/arch': 'arm64' }),
      ['update node-a'],
      '(labels)',
    ],
    [
      'both',
      hostNode('node-a', NOT_READY, { 'kubernetes.io/arch': 'arm64' }),
      ['update node-a', 'patchStatus node-a'],
      '(labels, Ready)',
    ],
  ];
  it.each(follows)(
    'follows its host node when %s changed',
    async (_what, changed, expected, says) => {
      const t = setup({ hostNodes: [changed], tenantNodes: [ourNode(hostNode('node-a'))] });
      expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
      expect(t.lines()).toEqual(['Update Node /node-a -> node-a']);
      expect(t.ctx.ledger.recorder.decisions[0]?.reason).toBe(
        `host node "node-a" changed ${says}: its tenant Node follows`,
      );
      expect(t.writes()).toEqual(expected);
      const now = t.tenantApi.peek(NODE, undefined, 'node-a') as KubeObject;
      const want = tenantNode(changed, TENANT);
      expect({ labels: now.metadata.labels, status: now.status }).toEqual({
        labels: want.metadata.labels,
        status: want.status,
      });
    },
  );

  it('in sync: no write, no Decision, bindable', async () => {
    const t = setup({
      hostNodes: [hostNode('node-a')],
      tenantNodes: [ourNode(hostNode('node-a'))],
    });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
    expect(t.lines()).toEqual([]);
    expect(t.writes()).toEqual([]);
  });

  it('a change the write budget cannot carry whole waits, and the Node stays bindable', async () => {
    const both = hostNode(
      'node-a',
      { ...READY, status: 'False' },
      { 'kubernetes.io/arch': 'arm64' },
    );
    const t = setup({
      hostNodes: [both],
      tenantNodes: [ourNode(hostNode('node-a'))],
      budget: { maxWrites: 1 },
    });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
    expect(t.lines()).toEqual([]);
    expect(t.writes()).toEqual([]);
  });
});

describe('syncTenantNodes: Nodes it leaves alone', () => {
  it('a tenant Node the engine did not make: a Skip, untouched, not bindable', async () => {
    const t = setup({ hostNodes: [hostNode('node-a')], tenantNodes: [foreignNode('node-a')] });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual([]);
    expect(t.lines()).toEqual(['Skip Node /node-a -> node-a']);
    expect(t.ctx.ledger.recorder.decisions[0]?.reason).toBe(
      'the tenant has a Node "node-a" that tenantplane did not make: it is left untouched, and the tenant Pods whose host copies run on host node "node-a" are not bound to it',
    );
    expect(t.writes()).toEqual([]);
    expect(t.tenantApi.peek(NODE, undefined, 'node-a')?.metadata.labels).toEqual({ mine: 'yes' });
  });

  it('a tenant Node the engine did not make and no Pod needs: not removed, not even looked at', async () => {
    const t = setup({ tenantNodes: [foreignNode('theirs')] });
    expect(await t.sync([])).toEqual([]);
    expect(t.lines()).toEqual([]);
    expect(t.tenantApi.calls.map((c) => `${c.method} ${c.kind}`)).toEqual(['list Node']);
  });

  it('a Node being deleted is neither written nor bindable, needed or not', async () => {
    const ending = { deletionTimestamp: '2030-01-01T00:00:00Z', finalizers: ['x'] };
    const t = setup({
      hostNodes: [hostNode('node-a', { ...READY, status: 'False' })],
      tenantNodes: [ourNode(hostNode('node-a'), ending), ourNode(hostNode('old'), ending)],
    });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual([]);
    expect(t.lines()).toEqual([]);
    expect(t.writes()).toEqual([]);
  });

  it('a host node gone while Pods still name it: its tenant Node stays as it was, bindable', async () => {
    const t = setup({
      tenantNodes: [ourNode(hostNode('node-a')), foreignNode('node-b')],
    });
    expect(
      await t.sync([hostPod('web', 'node-a'), hostPod('api', 'node-b'), hostPod('db', 'node-c')]),
    ).toEqual(['node-a']);
    expect(t.lines()).toEqual([]);
    expect(t.writes()).toEqual([]);
  });
});

describe('syncTenantNodes: removes', () => {
  it('removes a Node of the engine no host Pod names and no tenant Pod is bound to', async () => {
    const t = setup({
      hostNodes: [hostNode('node-a')],
      tenantNodes: [ourNode(hostNode('node-a')), ourNode(hostNode('old'))],
    });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual(['node-a']);
    expect(t.lines()).toEqual(['Delete Node /old -> old']);
    expect(t.ctx.ledger.recorder.decisions[0]?.reason).toBe(
      'no Pod of the tenant runs on host node "old" any more: its tenant Node goes',
    );
    expect(t.nodeNames()).toEqual(['node-a']);
    const podLists = t.tenantApi.callsOf('list').filter((c) => c.kind === 'Pod');
    expect(podLists.map((c) => c.options)).toEqual([
      { fieldSelector: 'spec.nodeName=old', limit: 1 },
    ]);
    expect(t.tenantApi.callsOf('delete').map((c) => c.name)).toEqual(['old']);
  });

  it('keeps a Node a tenant Pod is still bound to', async () => {
    const bound = {
      ...POD,
      metadata: { namespace: 'kube-system', name: 'p' },
      spec: { nodeName: 'old' },
    };
    const t = setup({ tenantNodes: [ourNode(hostNode('old'))], tenantPods: [bound] });
    expect(await t.sync([])).toEqual([]);
    expect(t.lines()).toEqual([]);
    expect(t.nodeNames()).toEqual(['old']);
  });

  it('a spent write budget removes nothing', async () => {
    const t = setup({ tenantNodes: [ourNode(hostNode('old'))], budget: { maxWrites: 0 } });
    await t.sync([]);
    expect(t.nodeNames()).toEqual(['old']);
    expect(t.lines()).toEqual([]);
  });

  /** Runs `act` on the tenant cluster once the step looks for Pods bound to Node `old`. */
  const meanwhile = (act: (tenant: MemoryCluster) => void): MemoryClusterOptions => ({
    beforeCall: (call, cluster) => {
      if (call.kind === 'Pod' && call.method === 'list') act(cluster);
    },
  });
  const GOES = 'no Pod of the tenant runs on host node "old" any more: its tenant Node goes';
  const outcomes: Array<[string, MemoryClusterOptions, ClusterError | undefined, object]> = [
    [
      'that finds it gone already: a Delete, alreadyGone',
      meanwhile((tenant) => tenant.remove(NODE, undefined, 'old')),
      undefined,
      { action: 'Delete', alreadyGone: true, reason: GOES },
    ],
    [
      'of a Node changed after it was listed is refused by its preconditions: a Skip',
      // The same Node (its uid), written since: only its resourceVersion tells.
      meanwhile((tenant) => {
        const now = tenant.peek(NODE, undefined, 'old') as KubeObject;
        tenant.replace({ ...now, metadata: { ...now.metadata, annotations: { touched: 'yes' } } });
      }),
      undefined,
      {
        action: 'Skip',
        reason: `${GOES}, but the tenant Node changed after it was listed: the next pass decides again`,
      },
    ],
    [
      'refused: the Delete stands with its error, an error of the pass',
      {},
      new ClusterError('Forbidden', 'no nodes'),
      { action: 'Delete', error: expect.stringContaining('no nodes') },
    ],
  ];
  it.each(outcomes)('a delete %s', async (_what, tenant, refusal, decision) => {
    const t = setup({ tenantNodes: [ourNode(hostNode('old'))], tenant });
    t.tenantApi.failWhen((c) => (c.method === 'delete' ? refusal : undefined));
    await t.sync([]);
    expect(t.ctx.ledger.recorder.decisions).toEqual([expect.objectContaining(decision)]);
    expect(t.ctx.ledger.recorder.decisions[0]?.alreadyGone).toBe(
      (decision as { alreadyGone?: boolean }).alreadyGone,
    );
    expect(t.ctx.ledger.errors.errors).toEqual(
      refusal ? [expect.objectContaining({ kind: 'Node', reason: 'Forbidden' })] : [],
    );
  });

  it('a failed look for Pods bound to it is that Node’s error; it stays', async () => {
    const t = setup({ tenantNodes: [ourNode(hostNode('old'))] });
    t.tenantApi.failWhen((c) =>
      c.kind === 'Pod' ? new ClusterError('Forbidden', 'no pods') : undefined,
    );
    await t.sync([]);
    expect(t.ctx.ledger.errors.errors).toEqual([
      {
        kind: 'Node',
        tenantRef: { namespace: '', name: 'old' },
        message: 'no pods',
        reason: 'Forbidden',
      },
    ]);
    expect(t.lines()).toEqual([]);
    expect(t.nodeNames()).toEqual(['old']);
  });
});

describe('syncTenantNodes: failed reads and a stopped pass', () => {
  it('the tenant Nodes cannot be listed: nothing written or bindable, one error of the Node kind', async () => {
    const t = setup({ hostNodes: [hostNode('node-a')] });
    t.tenantApi.failWhen((c) =>
      c.kind === 'Node' ? new ClusterError('Forbidden', 'no nodes') : undefined,
    );
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual([]);
    expect(t.writes()).toEqual([]);
    expect(t.ctx.ledger.errors.incompleteKinds).toEqual(['Node: no tenant Pod is bound to one']);
  });

  it('the host nodes cannot be read: the engine’s Nodes the Pods name stay bindable, nothing is written', async () => {
    const t = setup({
      hostNodes: [hostNode('node-a'), hostNode('node-b')],
      tenantNodes: [ourNode(hostNode('node-a')), foreignNode('node-b'), ourNode(hostNode('old'))],
    });
    t.hostApi.failWhen(() => new ClusterError('Forbidden', 'nodes is forbidden'));
    expect(
      await t.sync([hostPod('web', 'node-a'), hostPod('api', 'node-b'), hostPod('db', 'node-c')]),
    ).toEqual(['node-a']);
    expect(t.writes()).toEqual([]);
    expect(t.ctx.ledger.errors.incompleteKinds).toEqual(['Node: its tenant Nodes wait']);
  });

  it('a stopped pass reads and writes nothing', async () => {
    const t = setup({ hostNodes: [hostNode('node-a')], budget: { deadline: 0 } });
    expect(await t.sync([hostPod('web', 'node-a')])).toEqual([]);
    expect([...t.tenantApi.calls, ...t.hostApi.calls]).toEqual([]);
  });
});
