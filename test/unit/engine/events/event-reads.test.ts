/**
 * What the Events back step reads, step by step on the in-memory fakes: the host Events that may
 * concern this tenant (the keep filter, Warnings only by default, page by page), the tenant copies
 * and host copies by their labels, a tenant object's uid by a LIST by name; the reads started while
 * the kinds sync and taken by the step (the same reads, listed once); and which policies read
 * Events at all. Events back through whole passes is in events-back.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { PassContext } from '../../../../lib/engine/context/pass-context.js';
import { ClusterUnreachableError } from '../../../../lib/engine/errors.js';
import { eventCopyLabels, eventCopySelector } from '../../../../lib/engine/events/event-copy.js';
import {
  dropEventReads,
  eventsBackScope,
  listCopyMetadata,
  listEventCopies,
  listHostEvents,
  prefetchEventsBack,
  startEventReads,
  takeEventReads,
  tenantObjectUid,
} from '../../../../lib/engine/events/event-reads.js';
import { tenantCopySelector } from '../../../../lib/engine/names/copy-selector.js';
import { Labels, MANAGED_BY_VALUE } from '../../../../lib/engine/names/metadata.js';
import type { EventsBack } from '../../../../lib/engine/policy/workloads.js';
import {
  ClusterError,
  EVENT,
  INGRESS,
  type KindRef,
  type KubeObject,
  type ListOptions,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  SERVICE,
} from '../../../../lib/ports/index.js';
import { type FakeCall, MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, HOST_NS, hn, passContext, SECRET, TENANT } from '../support.js';

const CLAIM = PERSISTENT_VOLUME_CLAIM;
const LONG = 'a-very-long-deployment-name-that-surely-needs-hashing-abc123';

let seq = 0;
/** A host Event about `involved` (a Pod copy of shop/web unless given), `Warning` unless given. */
function hostEvent(
  involved: Record<string, unknown> = {},
  fields: Record<string, unknown> = {},
): KubeObject {
  seq += 1;
  return {
    ...EVENT,
    metadata: { namespace: HOST_NS, name: `event-${String(seq).padStart(3, '0')}` },
    involvedObject: {
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: HOST_NS,
      name: hn('shop', 'web'),
      uid: 'host-pod-uid',
      ...involved,
    },
    type: 'Warning',
    reason: 'BackOff',
    ...fields,
  };
}

/** A pass context whose policy syncs `toHost` with `eventsBack`, on the given fakes. */
function eventContext(
  options: {
    toHost?: KindRef[];
    eventsBack?: EventsBack;
    hostApi?: MemoryCluster;
    tenantApi?: MemoryCluster;
    pageSize?: number;
  } = {},
): PassContext {
  const ctx = passContext({
    hostApi: options.hostApi ?? new MemoryCluster('host'),
    tenantApi: options.tenantApi ?? new MemoryCluster('tenant'),
    ...(options.pageSize === undefined ? {} : { budget: { pageSize: options.pageSize } }),
  });
  const policy = {
    ...ctx.scope.policy,
    toHost: options.toHost ?? [POD],
    ...(options.eventsBack === undefined ? {} : { workloads: { eventsBack: options.eventsBack } }),
  };
  return { ...ctx, scope: { ...ctx.scope, policy } };
}

/** The LISTs of Events `api` was asked, with their options. */
const eventLists = (api: MemoryCluster): Array<ListOptions | undefined> =>
  api
    .callsOf('list')
    .filter((c) => c.kind === 'Event')
    .map((c) => c.options);

const names = (objects: readonly KubeObject[] | undefined) => objects?.map((o) => o.metadata.name);

/** A Warning Event `warning` and a Normal Event `normal` about the tenant's Pod copy. */
const warningAndNormal = (): KubeObject[] => [
  { ...hostEvent(), metadata: { namespace: HOST_NS, name: 'warning' } },
  { ...hostEvent({}, { type: 'Normal' }), metadata: { namespace: HOST_NS, name: 'normal' } },
];

/** A gate the fake's calls can wait on. */
function gate() {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('listHostEvents', () => {
  // [what the Event is about, its involvedObject besides a Pod copy of shop/web, kept]
  const cases: Array<[string, Record<string, unknown> | undefined, boolean]> = [
    ['a Pod copy of this tenant', {}, true],
    ['a copy with a hashed name', { name: hn('shop', LONG) }, true],
    ['another version of a synced kind (same group)', { apiVersion: 'v2' }, true],
    ['a Service copy (also synced)', { kind: 'Service' }, true],
    ['nothing (no involvedObject)', undefined, false],
    ['an object in another namespace', { namespace: 'tenant-prod' }, false],
    ['an object without a name', { name: '' }, false],
    ['a ConfigMap (synced, but its Events never come back)', { kind: 'ConfigMap' }, false],
    ['a claim (its Events come back, but not synced)', { kind: 'PersistentVolumeClaim' }, false],
    ['a kind of the name in another API group', { apiVersion: 'example.com/v1' }, false],
    ['a copy of another tenant', { name: hn('shop', 'web', 'prod') }, false],
    ['a host object no tenant copy can be named', { name: 'web' }, false],
  ];
  it.each(cases)('an Event about %s: kept %s', async (_about, involved, kept) => {
    const event = involved ? hostEvent(involved) : { ...hostEvent(), involvedObject: undefined };
    const hostApi = new MemoryCluster('host').seed(event);
    const ctx = eventContext({ hostApi });
    const listed = await listHostEvents(ctx, [POD, SERVICE, CONFIGMAP], false);
    expect(names(listed)).toEqual(kept ? [event.metadata.name] : []);
    expect(ctx.ledger.errors.errors).toEqual([]);
  });

  it('an Event without a uid is not kept', async () => {
    const hostApi = new MemoryCluster('host');
    hostApi.replace(hostEvent()); // stored as given: no uid filled in
    const listed = await listHostEvents(eventContext({ hostApi }), [POD], false);
    expect(listed).toEqual([]);
  });

  it.each([
    { warningsOnly: undefined, selector: 'type=Warning', expected: ['warning'] },
    { warningsOnly: true, selector: 'type=Warning', expected: ['warning'] },
    { warningsOnly: false, selector: undefined, expected: ['normal', 'warning'] },
  ])(
    'warningsOnly $warningsOnly: the server is asked for $selector',
    async ({ warningsOnly, selector, expected }) => {
      const hostApi = new MemoryCluster('host').seed(...warningAndNormal());
      const ctx = eventContext({ hostApi });
      const listed =
        warningsOnly === undefined
          ? await listHostEvents(ctx, [POD])
          : await listHostEvents(ctx, [POD], warningsOnly);
      expect(names(listed)?.sort()).toEqual(expected);
      expect(eventLists(hostApi)).toEqual([
        { namespace: HOST_NS, limit: 500, ...(selector ? { fieldSelector: selector } : {}) },
      ]);
    },
  );

  it('reads every page of the namespace and keeps what concerns the tenant from each', async () => {
    const hostApi = new MemoryCluster('host');
    const events = [
      hostEvent(),
      hostEvent({ name: 'foreign' }),
      hostEvent(),
      hostEvent({ namespace: 'elsewhere' }),
      hostEvent(),
    ];
    hostApi.seed(...events);
    const listed = await listHostEvents(eventContext({ hostApi, pageSize: 2 }), [POD]);
    expect(names(listed)).toEqual([0, 2, 4].map((i) => events[i]?.metadata.name));
    expect(eventLists(hostApi).map((o) => o?.limit)).toEqual([2, 2, 2]);
  });

  it('a failed listing is one error of the pass: undefined, and the Events wait', async () => {
    const hostApi = new MemoryCluster('host').seed(hostEvent());
    hostApi.failWhen((c) =>
      c.kind === 'Event' ? new ClusterError('Forbidden', 'events is forbidden') : undefined,
    );
    const ctx = eventContext({ hostApi });
    expect(await listHostEvents(ctx, [POD])).toBeUndefined();
    expect(ctx.ledger.errors.errors).toEqual([
      {
        kind: 'Event',
        message: 'listing host Event objects failed: events is forbidden',
        reason: 'Forbidden',
      },
    ]);
    expect(ctx.ledger.errors.incompleteKinds).toEqual([
      'Event: host Events wait for the next pass',
    ]);
  });

  it('a pass-level failure is not contained: it ends the pass', async () => {
    const unreachable = new ClusterUnreachableError('host');
    const hostApi = new MemoryCluster('host', {
      beforeCall: () => {
        throw unreachable;
      },
    });
    const ctx = eventContext({ hostApi });
    await expect(listHostEvents(ctx, [POD])).rejects.toBe(unreachable);
    expect(ctx.ledger.errors.errors).toEqual([]);
  });
});

describe('the copies and a tenant object', () => {
  it('listEventCopies: the tenant’s copies in every namespace, by their labels', async () => {
    const copy = (namespace: string, name: string, tenant = TENANT): KubeObject => ({
      ...EVENT,
      metadata: { namespace, name, labels: eventCopyLabels(tenant) },
    });
    const tenantApi = new MemoryCluster('tenant').seed(
      copy('shop', 'a'),
      copy('other', 'b'),
      copy('shop', 'theirs', 'prod'),
      { ...EVENT, metadata: { namespace: 'shop', name: 'own' } },
    );
    const ctx = eventContext({ tenantApi });
    const listed = await listEventCopies(ctx, tenantApi);
    expect(names(listed)).toEqual(['b', 'a']);
    expect(eventLists(tenantApi)).toEqual([
      { labelSelector: eventCopySelector(TENANT), limit: 500 },
    ]);
  });

  it('listCopyMetadata: this tenant’s copies of the kind in the host namespace, metadata only', async () => {
    const labels = (tenant: string, kind: string) => ({
      [Labels.ManagedBy]: MANAGED_BY_VALUE,
      [Labels.Tenant]: tenant,
      [Labels.Kind]: kind,
    });
    const metadata = {
      namespace: HOST_NS,
      name: 'web-copy',
      uid: 'u-web',
      labels: labels(TENANT, 'Pod'),
      annotations: { 'tenantplane.io/virtual-name': 'web' },
    };
    const hostApi = new MemoryCluster('host').seed(
      {
        ...POD,
        metadata: { ...metadata, ownerReferences: [] },
        spec: { containers: [{ name: 'c', image: 'i' }] },
        status: { phase: 'Running' },
      },
      { ...POD, metadata: { namespace: HOST_NS, name: 'prod', labels: labels('prod', 'Pod') } },
      { ...POD, metadata: { namespace: 'elsewhere', name: 'x', labels: labels(TENANT, 'Pod') } },
      { ...SECRET, metadata: { namespace: HOST_NS, name: 's', labels: labels(TENANT, 'Secret') } },
    );
    // Without its resourceVersion, owners, spec or status: the reverse mapping needs none.
    expect(await listCopyMetadata(eventContext({ hostApi }), POD)).toEqual([{ ...POD, metadata }]);
    expect(hostApi.callsOf('list').map((c) => c.options)).toEqual([
      { namespace: HOST_NS, labelSelector: tenantCopySelector(TENANT, 'Pod'), limit: 500 },
    ]);
  });

  it('listCopyMetadata: a failed listing is an error of that kind, undefined', async () => {
    const hostApi = new MemoryCluster('host').failWhen(() => new ClusterError('Forbidden', 'no'));
    const ctx = eventContext({ hostApi });
    expect(await listCopyMetadata(ctx, SERVICE)).toBeUndefined();
    expect(ctx.ledger.errors.incompleteKinds).toEqual([
      'Service: host Events wait for the next pass',
    ]);
  });

  const pod = (namespace: string, name: string, more: Partial<KubeObject['metadata']> = {}) => ({
    ...POD,
    metadata: { namespace, name, uid: `uid-${namespace}-${name}`, ...more },
  });
  const uidCases: Array<[string, KubeObject[], string | undefined]> = [
    ['there', [pod('shop', 'web')], 'uid-shop-web'],
    ['gone (only other names and namespaces)', [pod('shop', 'web-2'), pod('x', 'web')], undefined],
    [
      'being deleted',
      [pod('shop', 'web', { deletionTimestamp: '2030-01-01T00:00:00Z' })],
      undefined,
    ],
  ];
  it.each(uidCases)('tenantObjectUid, the object %s: %s', async (_state, stored, expected) => {
    const tenantApi = new MemoryCluster('tenant').seed(...stored);
    const uid = await tenantObjectUid(eventContext({ tenantApi }), tenantApi, POD, 'shop', 'web');
    expect(uid).toBe(expected);
    // A LIST by name: the tenant identity may list, not get.
    expect(tenantApi.calls.map((c) => [c.method, c.options])).toEqual([
      ['list', { namespace: 'shop', fieldSelector: 'metadata.name=web', limit: 1 }],
    ]);
  });
});

describe('the reads started while the kinds sync', () => {
  /** A host with one Warning and one Normal Event about the tenant's Pod copy. */
  function seeded(hostOptions: ConstructorParameters<typeof MemoryCluster>[1] = {}) {
    const hostApi = new MemoryCluster('host', hostOptions).seed(...warningAndNormal());
    const tenantApi = new MemoryCluster('tenant');
    return { hostApi, tenantApi, ctx: eventContext({ hostApi, tenantApi }) };
  }

  it('started, then taken: the same reads, listed once', async () => {
    const { hostApi, tenantApi, ctx } = seeded();
    startEventReads(ctx, tenantApi, [POD], true);
    startEventReads(ctx, tenantApi, [POD], false); // already started: nothing new
    // Taken with other arguments: what was started is what the step gets.
    const reads = await takeEventReads(ctx, tenantApi, [POD], false);
    expect(names(reads.hostEvents)).toEqual(['warning']);
    expect(reads.copies).toEqual([]);
    expect(eventLists(hostApi)).toHaveLength(1);
    expect(eventLists(tenantApi)).toHaveLength(1);

    // Taken, they are the step's: the next take reads anew.
    const again = await takeEventReads(ctx, tenantApi, [POD], false);
    expect(names(again.hostEvents)?.sort()).toEqual(['normal', 'warning']);
    expect(eventLists(hostApi)).toHaveLength(2);
  });

  it('taken without a start: read then', async () => {
    const { hostApi, tenantApi, ctx } = seeded();
    const reads = await takeEventReads(ctx, tenantApi, [POD], true);
    expect(names(reads.hostEvents)).toEqual(['warning']);
    expect(eventLists(hostApi)).toHaveLength(1);
  });

  it('no host Event that may concern the tenant: its copies are not read', async () => {
    const hostApi = new MemoryCluster('host').seed(hostEvent({ name: 'foreign' }));
    const tenantApi = new MemoryCluster('tenant');
    const reads = await takeEventReads(
      eventContext({ hostApi, tenantApi }),
      tenantApi,
      [POD],
      true,
    );
    expect(reads).toEqual({ hostEvents: [] });
    expect(tenantApi.calls).toEqual([]);
  });

  it('a failed host listing: no Events, no copies read, one error', async () => {
    const { hostApi, tenantApi, ctx } = seeded();
    hostApi.failWhen(() => new ClusterError('Forbidden', 'no'));
    const reads = await takeEventReads(ctx, tenantApi, [POD], true);
    expect(reads).toEqual({ hostEvents: undefined });
    expect(tenantApi.calls).toEqual([]);
    expect(ctx.ledger.errors.errors).toHaveLength(1);
  });

  it('a pass-level failure started ahead rejects where the reads are taken', async () => {
    const unreachable = new ClusterUnreachableError('host');
    const { tenantApi, ctx } = seeded({
      beforeCall: () => {
        throw unreachable;
      },
    });
    startEventReads(ctx, tenantApi, [POD], true);
    await new Promise((resolve) => setTimeout(resolve, 5)); // rejected meanwhile, unhandled never
    await expect(takeEventReads(ctx, tenantApi, [POD], true)).rejects.toBe(unreachable);
  });

  it('dropEventReads waits for the reads out, and forgets them', async () => {
    const held = gate();
    const { hostApi, tenantApi, ctx } = seeded({
      beforeCall: async (call: FakeCall) => {
        if (call.kind === 'Event') await held.promise;
      },
    });
    startEventReads(ctx, tenantApi, [POD], true);
    let dropped = false;
    const dropping = dropEventReads(ctx).then(() => {
      dropped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(dropped).toBe(false);
    held.open();
    await dropping;
    expect(eventLists(tenantApi)).toHaveLength(1); // the copies were read before it ended
    await takeEventReads(ctx, tenantApi, [POD], true);
    expect(eventLists(hostApi)).toHaveLength(2);
  });
});

describe('eventsBackScope and prefetchEventsBack', () => {
  type Scope = { rules: KindRef[]; warningsOnly: boolean } | undefined;
  // [policy, toHost, spec.workloads.eventsBack, the scope besides the tenant client]
  const cases: Array<[string, KindRef[], EventsBack | undefined, Scope]> = [
    ['Pods, no eventsBack', [POD], undefined, { rules: [POD], warningsOnly: true }],
    ['Pods, Warning', [POD], 'Warning', { rules: [POD], warningsOnly: true }],
    ['Pods, All', [POD], 'All', { rules: [POD], warningsOnly: false }],
    ['Pods and Services, None', [POD, SERVICE], 'None', undefined],
    ['no kind whose Events come back', [CONFIGMAP, SECRET], 'All', undefined],
    [
      'every kind whose Events come back, in policy order, no other',
      [CONFIGMAP, INGRESS, SECRET, CLAIM, SERVICE, POD],
      'All',
      { rules: [INGRESS, CLAIM, SERVICE, POD], warningsOnly: false },
    ],
  ];
  it.each(cases)('%s', async (_policy, toHost, eventsBack, expected) => {
    const hostApi = new MemoryCluster('host');
    const tenantApi = new MemoryCluster('tenant');
    const ctx = eventContext({ toHost, hostApi, tenantApi, ...(eventsBack ? { eventsBack } : {}) });
    const scope = eventsBackScope(ctx);
    if (expected === undefined) expect(scope).toBeUndefined();
    else expect(scope).toEqual({ tenantApi: ctx.scope.tenantApi, ...expected });

    // And the prefetch starts the host Events listing exactly when there is a scope.
    prefetchEventsBack(ctx);
    await dropEventReads(ctx);
    expect(eventLists(hostApi)).toEqual(
      expected === undefined
        ? []
        : [
            {
              namespace: HOST_NS,
              limit: 500,
              ...(expected.warningsOnly ? { fieldSelector: 'type=Warning' } : {}),
            },
          ],
    );
  });

  it('the reads the prefetch started are the ones the step takes', async () => {
    const hostApi = new MemoryCluster('host').seed(hostEvent());
    const tenantApi = new MemoryCluster('tenant');
    const ctx = eventContext({ hostApi, tenantApi });
    prefetchEventsBack(ctx);
    const scope = eventsBackScope(ctx);
    if (!scope) throw new Error('no Events back scope');
    const reads = await takeEventReads(ctx, scope.tenantApi, scope.rules, scope.warningsOnly);
    expect(reads.hostEvents).toHaveLength(1);
    expect(eventLists(hostApi)).toHaveLength(1);
  });
});
