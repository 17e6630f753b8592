/**
 * One kind start to end, on the in-memory clusters: the host listing, the tenant listing page by
 * page with apply, then GC only from a complete tenant listing. Listing failures and bounds are
 * recorded on the context, never thrown; only an unreachable tenant throws.
 */
import { describe, expect, it } from '@jest/globals';
import type { Budget } from '../../../../lib/engine/bounds/budget.js';
import { formatObjectError } from '../../../../lib/engine/context/object-errors.js';
import type { PassProgress } from '../../../../lib/engine/context/pass-context.js';
import { ClusterUnreachableError } from '../../../../lib/engine/errors.js';
import { compileKindRule } from '../../../../lib/engine/index.js';
import { syncKind } from '../../../../lib/engine/pipeline/sync-kind.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { type FailureRule, MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm, decisionLines, HOST_NS, hn, hostCopyOf, passContext } from '../support.js';

const RULE = compileKindRule({ apiVersion: 'v1', kind: 'ConfigMap' });

function setup(tenantState: KubeObject[], hostState: KubeObject[], budget: Partial<Budget> = {}) {
  const tenantApi = new MemoryCluster('tenant').seed(...tenantState);
  const hostApi = new MemoryCluster('host').seed(...hostState);
  const ctx = passContext({ tenantApi, hostApi, budget });
  return { tenantApi, hostApi, ctx };
}

/** Fails the `n`th call of `method` (1-based) with `error`. */
function failNth(method: string, n: number, error: ClusterError): FailureRule {
  let seen = 0;
  return (call) => {
    if (call.method !== method) return undefined;
    seen += 1;
    return seen === n ? error : undefined;
  };
}

interface Case {
  name: string;
  tenantState: KubeObject[];
  hostState: KubeObject[];
  budget?: Partial<Budget>;
  failHost?: FailureRule;
  failTenant?: FailureRule;
  expectedDecisions: string[];
  expectedErrors: string[];
  expectedIncomplete: string[];
  /** Names of the ConfigMaps in the host namespace afterwards. */
  expectedHostNames: string[];
  expectedTenantLists: number;
  expectedObjectsSeen: number;
}

const forbidden = (what: string) => new ClusterError('Forbidden', `${what} is forbidden`);

const CASES: Case[] = [
  {
    name: 'creates, updates and garbage-collects from a complete listing',
    tenantState: [cm('default', 'new'), cm('default', 'changed', { k: 'new' })],
    hostState: [hostCopyOf(cm('default', 'changed')), hostCopyOf(cm('default', 'gone'))],
    expectedDecisions: [
      `Create ConfigMap default/new -> ${hn('default', 'new')}`,
      `Delete ConfigMap default/gone -> ${hn('default', 'gone')}`,
      `Update ConfigMap default/changed -> ${hn('default', 'changed')}`,
    ],
    expectedErrors: [],
    expectedIncomplete: [],
    expectedHostNames: [hn('default', 'changed'), hn('default', 'new')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 2,
  },
  {
    // The tenant's first page was read while the host side was listed; none of it is taken in.
    name: 'a failed host listing records an error, takes in no tenant object and runs no GC',
    tenantState: [cm('default', 'a')],
    hostState: [hostCopyOf(cm('default', 'gone'))],
    failHost: failNth('list', 1, forbidden('configmaps')),
    expectedDecisions: [],
    expectedErrors: [
      'ConfigMap: listing host ConfigMap objects failed: configmaps is forbidden (Forbidden)',
    ],
    expectedIncomplete: ['ConfigMap: the host listing failed'],
    expectedHostNames: [hn('default', 'gone')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 0,
  },
  {
    name: 'a failed host listing on a later page is the same',
    tenantState: [cm('default', 'a')],
    hostState: [hostCopyOf(cm('default', 'gone')), hostCopyOf(cm('default', 'gone2'))],
    budget: { pageSize: 1 },
    failHost: failNth('list', 2, new ClusterError('Unknown', 'stream reset')),
    expectedDecisions: [],
    expectedErrors: ['ConfigMap: listing host ConfigMap objects failed: stream reset (Unknown)'],
    expectedIncomplete: ['ConfigMap: the host listing failed'],
    expectedHostNames: [hn('default', 'gone'), hn('default', 'gone2')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 0,
  },
  {
    name: 'a failed tenant listing records an error and skips GC',
    tenantState: [cm('default', 'a')],
    hostState: [hostCopyOf(cm('default', 'gone'))],
    failTenant: failNth('list', 1, forbidden('configmaps')),
    expectedDecisions: [],
    expectedErrors: [
      'ConfigMap: listing tenant ConfigMap objects failed: configmaps is forbidden (Forbidden)',
    ],
    expectedIncomplete: [
      'ConfigMap: the tenant listing failed, so its garbage collection was skipped',
    ],
    expectedHostNames: [hn('default', 'gone')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 0,
  },
  {
    name: 'a tenant listing failing on a later page applies what it got, and skips GC',
    tenantState: [cm('default', 'a'), cm('default', 'b')],
    hostState: [hostCopyOf(cm('default', 'gone'))],
    budget: { pageSize: 1 },
    // Not the first tenant request of the pass, so a transport failure is per-kind trouble.
    failTenant: failNth('list', 2, new ClusterError('Transport', 'connection reset')),
    expectedDecisions: [`Create ConfigMap default/a -> ${hn('default', 'a')}`],
    expectedErrors: [
      'ConfigMap: listing tenant ConfigMap objects failed: connection reset (Transport)',
    ],
    expectedIncomplete: [
      'ConfigMap: the tenant listing failed, so its garbage collection was skipped',
    ],
    expectedHostNames: [hn('default', 'a'), hn('default', 'gone')],
    expectedTenantLists: 2,
    expectedObjectsSeen: 1,
  },
  {
    // The listing goes on to the end and GC has the budget first: no create while an orphan waits.
    name: 'under a write budget GC deletes first and the creates wait for the next pass',
    tenantState: [cm('default', 'a'), cm('default', 'b')],
    hostState: [hostCopyOf(cm('default', 'gone'))],
    budget: { maxWrites: 1, concurrency: 1 },
    expectedDecisions: [`Delete ConfigMap default/gone -> ${hn('default', 'gone')}`],
    expectedErrors: [],
    expectedIncomplete: [],
    expectedHostNames: [],
    expectedTenantLists: 1,
    expectedObjectsSeen: 2,
  },
  {
    // The pass reports the spent budget (PassBounds.stopReason); the kind's GC did run.
    name: 'a write budget spent during GC leaves the rest of the orphans to the next pass',
    tenantState: [],
    hostState: [hostCopyOf(cm('default', 'g1')), hostCopyOf(cm('default', 'g2'))],
    budget: { maxWrites: 1, concurrency: 1 },
    expectedDecisions: [`Delete ConfigMap default/g1 -> ${hn('default', 'g1')}`],
    expectedErrors: [],
    expectedIncomplete: [],
    expectedHostNames: [hn('default', 'g2')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 0,
  },
  {
    name: 'a rejected write is an error of that object; the kind completes and GC runs',
    tenantState: [cm('default', 'bad'), cm('default', 'good')],
    hostState: [hostCopyOf(cm('default', 'gone'))],
    failHost: (call) =>
      call.method === 'create' && call.name === hn('default', 'bad')
        ? new ClusterError('Invalid', 'denied')
        : undefined,
    expectedDecisions: [
      `Create ConfigMap default/bad -> ${hn('default', 'bad')}`,
      `Create ConfigMap default/good -> ${hn('default', 'good')}`,
      `Delete ConfigMap default/gone -> ${hn('default', 'gone')}`,
    ],
    expectedErrors: ['ConfigMap default/bad: denied (Invalid)'],
    expectedIncomplete: [],
    expectedHostNames: [hn('default', 'good')],
    expectedTenantLists: 1,
    expectedObjectsSeen: 2,
  },
];

describe('syncKind', () => {
  it.each(CASES)('$name', async (c) => {
    const { tenantApi, hostApi, ctx } = setup(c.tenantState, c.hostState, c.budget);
    if (c.failHost) hostApi.failWhen(c.failHost);
    if (c.failTenant) tenantApi.failWhen(c.failTenant);

    await syncKind(ctx, RULE);

    expect(decisionLines(ctx.ledger.recorder.decisions)).toEqual(c.expectedDecisions);
    expect(ctx.ledger.errors.errors.map(formatObjectError)).toEqual(c.expectedErrors);
    expect(ctx.ledger.errors.incompleteKinds).toEqual(c.expectedIncomplete);
    expect(hostApi.objects(CONFIGMAP).map((o) => o.metadata.name)).toEqual(c.expectedHostNames);
    expect(tenantApi.callsOf('list')).toHaveLength(c.expectedTenantLists);
    expect([ctx.ledger.kindsStarted, ctx.ledger.hasStarted(CONFIGMAP)]).toEqual([1, true]);
    expect(ctx.ledger.objectsSeen).toEqual({ ConfigMap: c.expectedObjectsSeen });
  });

  it('reads the first tenant page while it lists the host namespace; writes after both', async () => {
    const { tenantApi, hostApi, ctx } = setup([cm('default', 'a')], []);
    const order: string[] = [];
    hostApi.failWhen((call) => {
      order.push(`host ${call.method} ${call.namespace}`);
      return undefined;
    });
    tenantApi.failWhen((call) => {
      order.push(`tenant ${call.method} ${call.namespace ?? '(all)'}`);
      return undefined;
    });
    await syncKind(ctx, RULE);
    expect(order).toEqual(['tenant list (all)', `host list ${HOST_NS}`, `host create ${HOST_NS}`]);
  });

  it('reads the next tenant page while it applies the current one, one page ahead', async () => {
    const { tenantApi, hostApi, ctx } = setup(
      [cm('default', 'a'), cm('default', 'b'), cm('default', 'c')],
      [],
      { pageSize: 1 },
    );
    const order: string[] = [];
    hostApi.failWhen((call) => {
      order.push(`host ${call.method} ${call.name ?? ''}`.trim());
      return undefined;
    });
    tenantApi.failWhen((call) => {
      order.push(`tenant ${call.method}`);
      return undefined;
    });
    await syncKind(ctx, RULE);
    expect(order).toEqual([
      'tenant list',
      'host list',
      'tenant list',
      `host create ${hn('default', 'a')}`,
      'tenant list',
      `host create ${hn('default', 'b')}`,
      `host create ${hn('default', 'c')}`,
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual([]);
  });

  it('a stop while a page is applied drops the page read ahead: none of it is applied', async () => {
    const { tenantApi, hostApi, ctx } = setup(
      [cm('default', 'a'), cm('default', 'b')],
      [hostCopyOf(cm('default', 'gone'))],
      { pageSize: 1 },
    );
    hostApi.failWhen((call) => {
      if (call.method === 'create') ctx.scope.bounds.halt('stopped for the test');
      return undefined;
    });
    await syncKind(ctx, RULE);
    expect(decisionLines(ctx.ledger.recorder.decisions)).toEqual([
      `Create ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
    // The second page was read while the first was applied; the stop left it unused.
    expect(tenantApi.callsOf('list')).toHaveLength(2);
    expect(ctx.ledger.objectsSeen).toEqual({ ConfigMap: 1 });
    expect(ctx.ledger.errors.incompleteKinds).toEqual([
      'ConfigMap: stopped before it finished, so its garbage collection was skipped',
    ]);
    expect(hostApi.objects(CONFIGMAP).map((o) => o.metadata.name)).toEqual([
      hn('default', 'a'),
      hn('default', 'gone'),
    ]);
  });

  it('an unreachable tenant (its first request gets no answer) throws', async () => {
    const { tenantApi, hostApi, ctx } = setup(
      [cm('default', 'a')],
      [hostCopyOf(cm('default', 'gone'))],
    );
    const transport = new ClusterError('Transport', 'connect ECONNREFUSED');
    tenantApi.failWhen(() => transport);
    const error = await syncKind(ctx, RULE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterUnreachableError);
    expect((error as Error).cause).toBe(transport);
    expect(ctx.ledger.recorder.decisions).toEqual([]);
    expect(hostApi.callsOf('delete')).toEqual([]);
  });

  it('a pass already stopped starts no request for the kind', async () => {
    const { tenantApi, hostApi, ctx } = setup([cm('default', 'a')], []);
    ctx.scope.bounds.halt('stopped for the test');
    await syncKind(ctx, RULE);
    expect(hostApi.calls).toEqual([]);
    expect(tenantApi.calls).toEqual([]);
    expect([ctx.ledger.kindsStarted, ctx.ledger.hasStarted(CONFIGMAP)]).toEqual([1, true]);
    expect(ctx.ledger.objectsSeen).toEqual({ ConfigMap: 0 });
  });

  it('a failing re-read after a create race is an error of the object, with no decision', async () => {
    const { hostApi, ctx } = setup([cm('default', 'a'), cm('default', 'b')], []);
    const occupant: KubeObject = {
      ...CONFIGMAP,
      metadata: { namespace: HOST_NS, name: hn('default', 'a') },
      data: {},
    };
    hostApi.failWhen((call) => {
      // The name is taken after the listing, and the re-read is refused.
      if (call.method === 'create' && call.name === occupant.metadata.name) hostApi.seed(occupant);
      return call.method === 'get' ? new ClusterError('Forbidden', 'get is forbidden') : undefined;
    });
    await syncKind(ctx, RULE);
    expect(decisionLines(ctx.ledger.recorder.decisions)).toEqual([
      `Create ConfigMap default/b -> ${hn('default', 'b')}`,
    ]);
    expect(ctx.ledger.errors.errors).toEqual([
      {
        kind: 'ConfigMap',
        tenantRef: { namespace: 'default', name: 'a' },
        hostRef: { namespace: HOST_NS, name: hn('default', 'a') },
        message: 'get is forbidden',
        reason: 'Forbidden',
      },
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual([]);
  });

  it('reports progress after each page, and after GC when it found candidates', async () => {
    const { ctx } = setup(
      [cm('default', 'a'), cm('default', 'b'), cm('default', 'c')],
      [hostCopyOf(cm('default', 'gone'))],
      { pageSize: 2 },
    );
    const progress: PassProgress[] = [];
    ctx.ledger.onProgress = (p) => progress.push(p);
    await syncKind(ctx, RULE);
    expect(progress).toEqual([
      { kind: 'ConfigMap', listed: 2, written: 2 },
      { kind: 'ConfigMap', listed: 3, written: 3 },
      { kind: 'ConfigMap', listed: 3, written: 4 },
    ]);
  });
});
