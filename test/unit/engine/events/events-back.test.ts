/**
 * Events back, pass after pass: a host Event about a copy becomes an Event on its tenant object in
 * tenant names, once; a count bump updates it; a steady pass writes nothing in the tenant and
 * reads one LIST on each side; Events about another tenant's copies, foreign objects, earlier
 * host objects and earlier tenant objects stay on the host; flood control, the write budget,
 * failures and dry runs.
 */
import { describe, expect, it } from '@jest/globals';
import { hostEventDigest, tenantEventName } from '../../../../lib/engine/events/event-copy.js';
import { runPass } from '../../../../lib/engine/index.js';
import { EventBackKeys, Labels } from '../../../../lib/engine/names/metadata.js';
import { ClusterError, type KubeObject, type PassResult } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, HOST_NS, hn } from '../support.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const EVENT = { apiVersion: 'v1', kind: 'Event' };
const LONG = 'a-very-long-deployment-name-that-surely-needs-hashing-abc123';

function tenantPod(name: string, uid = `tenant-uid-${name}`): KubeObject {
  return {
    ...POD,
    metadata: { namespace: 'shop', name, uid },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'web', image: 'nginx:1' }] },
  };
}

let seq = 0;
/** A host Event about host object `about` (its uid unless `uid` says otherwise). */
function hostEvent(
  about: KubeObject,
  fields: Record<string, unknown> = {},
  uid?: string,
): KubeObject {
  seq += 1;
  return {
    ...EVENT,
    metadata: {
      namespace: HOST_NS,
      name: `${about.metadata.name}.${seq}`,
      uid: `host-event-${seq}`,
    },
    involvedObject: {
      apiVersion: about.apiVersion,
      kind: about.kind,
      namespace: HOST_NS,
      name: about.metadata.name,
      uid: uid ?? about.metadata.uid,
    },
    type: 'Normal',
    reason: 'Scheduled',
    message: `Successfully assigned ${HOST_NS}/${about.metadata.name} to kwok-node-0`,
    count: 1,
    firstTimestamp: '2030-01-01T00:00:00Z',
    lastTimestamp: '2030-01-01T00:00:00Z',
    source: { component: 'default-scheduler' },
    ...fields,
  };
}

/** Tenant `dev` syncing Pods `web` and a hashed one in `shop`; the first pass made the copies. */
async function setup(
  tenantState: KubeObject[] = [tenantPod('web'), tenantPod(LONG)],
  eventsBack: 'Warning' | 'All' | 'None' = 'All',
) {
  const c = clusters(tenantState, [], { toHost: [POD, CONFIGMAP], workloads: { eventsBack } });
  const run = (options: { dryRun?: boolean; maxWrites?: number } = {}) =>
    runPass({
      tenant: 'dev',
      tenantApi: c.tenantApi,
      hostApi: c.hostApi,
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.maxWrites === undefined ? {} : { budget: { maxWrites: options.maxWrites } }),
    });
  expect((await run()).errors).toEqual([]);
  const hostPod = (name: string) => c.hostApi.peek(POD, HOST_NS, hn('shop', name)) as KubeObject;
  return { ...c, run, hostPod };
}

const tenantEvents = (tenantApi: MemoryCluster) => tenantApi.objects(EVENT);
const eventLines = (result: PassResult) =>
  result.decisions
    .filter((d) => d.kind === 'Event')
    .map((d) => `${d.action} ${d.tenantRef.namespace}/${d.tenantRef.name} <- ${d.hostRef.name}`);

describe('Events back', () => {
  it('a host Event about a host Pod appears on the tenant Pod in tenant names, once; a steady pass writes nothing in the tenant', async () => {
    const { tenantApi, hostApi, run, hostPod } = await setup();
    const event = hostEvent(hostPod('web'), {
      involvedObject: {
        ...(hostEvent(hostPod('web')).involvedObject as object),
        fieldPath: 'spec.containers{web}',
      },
      related: { kind: 'Node', name: 'kwok-node-0' },
    });
    const hashed = hostEvent(hostPod(LONG), { type: 'Warning', reason: 'BackOff' });
    hostApi.seed(event, hashed);

    const back = await run();
    expect(back.errors).toEqual([]);
    const webEvent = tenantEventName('web', String(event.metadata.uid));
    expect(eventLines(back).sort()).toEqual(
      [
        `Create shop/${webEvent} <- ${event.metadata.name}`,
        `Create shop/${tenantEventName(LONG, String(hashed.metadata.uid))} <- ${hashed.metadata.name}`,
      ].sort(),
    );
    expect(back.decisions.find((d) => d.tenantRef.name === webEvent)?.reason).toBe(
      'host Event "Normal Scheduled" about Pod shop/web: copied to the tenant, in tenant names',
    );
    expect(back.requests.tenant.writes).toBe(2);
    expect(back.requests.host.writes).toBe(0);
    const copy = tenantApi.peek(EVENT, 'shop', webEvent) as KubeObject;
    expect(copy).toMatchObject({
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: 'shop',
        name: 'web',
        uid: 'tenant-uid-web',
        fieldPath: 'spec.containers{web}',
      },
      type: 'Normal',
      reason: 'Scheduled',
      message: 'Successfully assigned shop/web to kwok-node-0',
      count: 1,
      source: { component: 'default-scheduler' },
    });
    expect(copy.related).toBeUndefined();
    expect(copy.metadata.labels?.[Labels.Tenant]).toBe('dev');
    expect(copy.metadata.annotations?.[EventBackKeys.HostEventUid]).toBe(event.metadata.uid);
    const other = tenantEvents(tenantApi).find((e) => e.reason === 'BackOff');
    expect(other?.message).toBe(`Successfully assigned shop/${LONG} to kwok-node-0`);

    for (const n of [1, 2]) {
      const steady = await run();
      expect({ n, decisions: steady.decisions, errors: steady.errors }).toEqual({
        n,
        decisions: [],
        errors: [],
      });
      expect(steady.requests.tenant.writes).toBe(0);
    }
    // The steady state reads one Event LIST on each side: no copies listed, no tenant lookup.
    tenantApi.calls.length = 0;
    hostApi.calls.length = 0;
    await run();
    const eventCalls = (api: MemoryCluster) =>
      api.calls.filter((c) => c.kind === 'Event' || c.options?.fieldSelector).map((c) => c.method);
    expect({ tenant: eventCalls(tenantApi), host: eventCalls(hostApi) }).toEqual({
      tenant: ['list'],
      host: ['list'],
    });
    expect(tenantEvents(tenantApi)).toHaveLength(2);
  });

  it('a count bump updates the tenant copy (count, last time, series), under the same name', async () => {
    const { tenantApi, hostApi, run, hostPod } = await setup();
    const event = hostEvent(hostPod('web'), { type: 'Warning', reason: 'BackOff' });
    hostApi.seed(event);
    await run();
    const name = tenantEventName('web', String(event.metadata.uid));
    const seen = hostApi.peek(EVENT, HOST_NS, event.metadata.name) as KubeObject;
    hostApi.replace({
      ...seen,
      count: 5,
      lastTimestamp: '2030-01-01T00:10:00Z',
      series: { count: 5, lastObservedTime: '2030-01-01T00:10:00.000000Z' },
    });

    const bumped = await run();
    expect(bumped.errors).toEqual([]);
    expect(eventLines(bumped)).toEqual([`Update shop/${name} <- ${event.metadata.name}`]);
    expect(bumped.decisions[0]?.reason).toBe(
      'host Event "Warning BackOff" about Pod shop/web was seen again (count 1 -> 5): its tenant copy follows',
    );
    expect(bumped.requests.tenant.writes).toBe(1);
    expect(tenantEvents(tenantApi)).toHaveLength(1);
    expect(tenantApi.peek(EVENT, 'shop', name)).toMatchObject({
      count: 5,
      lastTimestamp: '2030-01-01T00:10:00Z',
      series: { count: 5 },
      firstTimestamp: '2030-01-01T00:00:00Z',
      involvedObject: { uid: 'tenant-uid-web' },
    });
    expect((await run()).requests.tenant.writes).toBe(0);
  });

  it.each([
    [
      'another tenant’s copy in the shared host namespace (plain name)',
      (c: { hostApi: MemoryCluster }) => otherTenantPod(c.hostApi, 'web-x-shop-x-prod'),
    ],
    [
      'another tenant’s copy with a hashed name (it passes the name pre-filter)',
      (c: { hostApi: MemoryCluster }) => otherTenantPod(c.hostApi, hn('shop', LONG, 'prod')),
    ],
    [
      'a foreign host Pod named like a copy of this tenant',
      (c: { hostApi: MemoryCluster }) => {
        const pod = { ...POD, metadata: { namespace: HOST_NS, name: 'db-x-shop-x-dev' } };
        c.hostApi.seed(pod);
        return c.hostApi.peek(POD, HOST_NS, 'db-x-shop-x-dev') as KubeObject;
      },
    ],
  ])('an Event about %s is not copied', async (_what, occupant) => {
    const c = await setup();
    const about = occupant(c);
    c.hostApi.seed(
      hostEvent(about, { message: `Successfully assigned ${HOST_NS}/${about.metadata.name}` }),
    );
    const run = await c.run();
    expect(run.errors).toEqual([]);
    expect(eventLines(run)).toEqual([]);
    expect(tenantEvents(c.tenantApi)).toEqual([]);
    expect(run.requests.tenant.writes).toBe(0);
  });

  it('an Event about an earlier host Pod of the name, or a host ConfigMap, is not copied', async () => {
    const c = await setup();
    c.hostApi.seed(
      hostEvent(c.hostPod('web'), {}, 'uid-of-an-earlier-host-pod'),
      hostEvent(
        c.hostApi.peek(CONFIGMAP, HOST_NS, hn('shop', 'web')) ?? {
          ...CONFIGMAP,
          metadata: { name: hn('shop', 'web'), uid: 'cm' },
        },
      ),
    );
    const run = await c.run();
    expect(eventLines(run)).toEqual([]);
    expect(tenantEvents(c.tenantApi)).toEqual([]);
  });

  it('an Event older than the tenant object (its copy is of an earlier tenant Pod) is not copied', async () => {
    const c = await setup();
    // The tenant Pod was recreated; this pass cannot list Pods, so its copy is still the old one.
    c.tenantApi.replace(tenantPod('web', 'tenant-uid-web-recreated'));
    c.tenantApi.failWhen((call) =>
      (call.method === 'watch' || call.method === 'list') &&
      call.kind === 'Pod' &&
      !call.options?.fieldSelector
        ? new ClusterError('Forbidden', 'pods is forbidden', { status: 403 })
        : undefined,
    );
    c.hostApi.seed(hostEvent(c.hostPod('web')));
    const run = await c.run();
    expect(eventLines(run)).toEqual([]);
    expect(tenantEvents(c.tenantApi)).toEqual([]);
    // Told apart by the tenant Pod's uid, read by a LIST by name.
    const byName = c.tenantApi.calls.filter((call) => call.options?.fieldSelector);
    expect(byName.map((call) => call.options?.fieldSelector)).toEqual(['metadata.name=web']);
  });

  it('flood control: at most 100 tenant Event writes a pass, Warnings first; a Skip says how many wait', async () => {
    const c = await setup();
    const pod = c.hostPod('web');
    const events = Array.from({ length: 104 }, (_, i) =>
      hostEvent(pod, i === 103 ? { type: 'Warning', reason: 'FailedMount' } : {}),
    );
    c.hostApi.seed(...events);
    const first = await c.run();
    expect(first.errors).toEqual([]);
    const lines = eventLines(first);
    expect(lines.filter((l) => l.startsWith('Create'))).toHaveLength(100);
    expect(lines.filter((l) => l.startsWith('Skip'))).toHaveLength(1);
    expect(first.decisions.find((d) => d.action === 'Skip')?.reason).toBe(
      'at most 100 host Events are copied to the tenant per pass (flood control): this one and 3 more wait for the next pass',
    );
    expect(
      c.tenantApi.peek(EVENT, 'shop', tenantEventName('web', `host-event-${seq}`)),
    ).toMatchObject({
      reason: 'FailedMount',
    });
    const rest = await c.run();
    expect(eventLines(rest).filter((l) => l.startsWith('Create'))).toHaveLength(4);
    expect(eventLines(rest).filter((l) => l.startsWith('Skip'))).toEqual([]);
    expect(tenantEvents(c.tenantApi)).toHaveLength(104);
  });

  it('spends what the write budget leaves after the kinds; the next pass goes on', async () => {
    const c = await setup();
    c.tenantApi.replace({
      ...CONFIGMAP,
      metadata: { namespace: 'shop', name: 'cfg', uid: 'cfg' },
      data: {},
    });
    c.hostApi.seed(hostEvent(c.hostPod('web')), hostEvent(c.hostPod('web')));
    const first = await c.run({ maxWrites: 2 });
    expect(first.decisions.map((d) => `${d.action} ${d.kind}`)).toEqual([
      'Create ConfigMap',
      'Create Event',
    ]);
    expect(first.complete).toBe(false);
    const second = await c.run({ maxWrites: 2 });
    expect(eventLines(second)).toHaveLength(1);
    expect(tenantEvents(c.tenantApi)).toHaveLength(2);
  });

  it('a refused tenant write is that Event’s error; the others are still copied', async () => {
    const c = await setup();
    const refused = hostEvent(c.hostPod('web'), { reason: 'Refused' });
    c.hostApi.seed(refused, hostEvent(c.hostPod(LONG)));
    c.tenantApi.failWhen((call) =>
      call.method === 'create' && call.kind === 'Event' && call.name?.startsWith('web.')
        ? new ClusterError('Forbidden', 'events is forbidden', { status: 403 })
        : undefined,
    );
    const run = await c.run();
    expect(run.errors).toEqual([
      expect.objectContaining({
        kind: 'Event',
        reason: 'Forbidden',
        tenantRef: {
          namespace: 'shop',
          name: tenantEventName('web', String(refused.metadata.uid)),
        },
      }),
    ]);
    expect(tenantEvents(c.tenantApi).map((e) => e.involvedObject)).toEqual([
      expect.objectContaining({ name: LONG }),
    ]);
  });

  it('a tenant Event of the name that the engine did not make is left untouched: a Skip', async () => {
    const c = await setup();
    const event = hostEvent(c.hostPod('web'));
    c.hostApi.seed(event);
    const name = tenantEventName('web', String(event.metadata.uid));
    const own = { ...EVENT, metadata: { namespace: 'shop', name }, reason: 'Mine', message: 'x' };
    c.tenantApi.seed(own);
    const run = await c.run();
    expect(run.errors).toEqual([]);
    expect(eventLines(run)).toEqual([`Skip shop/${name} <- ${event.metadata.name}`]);
    expect(run.decisions[0]?.reason).toMatch(
      /an Event the engine did not make, which is left untouched/,
    );
    expect(c.tenantApi.peek(EVENT, 'shop', name)).toMatchObject({ reason: 'Mine', message: 'x' });
  });

  it('a host Event listing that fails is one error of the pass; the kinds still sync', async () => {
    const c = await setup();
    c.hostApi.failWhen((call) =>
      call.method === 'list' && call.kind === 'Event'
        ? new ClusterError('Forbidden', 'events is forbidden', { status: 403 })
        : undefined,
    );
    c.tenantApi.replace({
      ...CONFIGMAP,
      metadata: { namespace: 'shop', name: 'cfg', uid: 'cfg' },
      data: {},
    });
    const run = await c.run();
    expect(run.errors).toEqual([expect.objectContaining({ kind: 'Event', reason: 'Forbidden' })]);
    expect(run.decisions.map((d) => `${d.action} ${d.kind}`)).toEqual(['Create ConfigMap']);
  });

  it('reads the host Events once the host side of every kind is listed: an Event written later shows in the next pass', async () => {
    const c = await setup();
    const order: string[] = [];
    let written: KubeObject | undefined;
    const list = c.hostApi.list.bind(c.hostApi);
    c.hostApi.list = async (kind, options) => {
      order.push(kind.kind);
      const page = await list(kind, options);
      // The host writes an Event about the Pod just after the pass read the host's Events.
      if (kind.kind === 'Event' && !written) {
        written = hostEvent(c.hostPod('web'), { type: 'Warning', reason: 'BackOff' });
        c.hostApi.seed(written);
      }
      return page;
    };
    // A full pass: every kind lists the host.
    const full = {
      tenant: 'dev',
      tenantApi: c.tenantApi,
      hostApi: c.hostApi,
      path: 'full' as const,
    };
    const during = await runPass(full);
    expect(during.errors).toEqual([]);
    // The host Pods (the last kind) were listed before the Events: the reads do not slow them.
    expect(order.indexOf('Pod')).toBeGreaterThan(-1);
    expect(order.indexOf('Event')).toBeGreaterThan(order.indexOf('Pod'));
    expect(eventLines(during)).toEqual([]);
    const next = await c.run();
    expect(eventLines(next)).toEqual([
      `Create shop/${tenantEventName('web', String(written?.metadata.uid))} <- ${written?.metadata.name}`,
    ]);
  });

  it('a dry run decides and writes nothing; a policy without Pods, claims, Services or Ingresses reads no Events', async () => {
    const c = await setup();
    c.hostApi.seed(hostEvent(c.hostPod('web')));
    const dry = await c.run({ dryRun: true });
    expect(eventLines(dry)).toHaveLength(1);
    expect(tenantEvents(c.tenantApi)).toEqual([]);

    const plain = clusters([], [], { toHost: [CONFIGMAP] });
    await runPass({ tenant: 'dev', tenantApi: plain.tenantApi, hostApi: plain.hostApi });
    expect(plain.hostApi.calls.filter((call) => call.kind === 'Event')).toEqual([]);
  });

  it('records what it follows: the copy’s digest is the host Event’s', async () => {
    const c = await setup();
    const event = hostEvent(c.hostPod('web'));
    c.hostApi.seed(event);
    await c.run();
    const [copy] = tenantEvents(c.tenantApi);
    const stored = c.hostApi.peek(EVENT, HOST_NS, event.metadata.name) as KubeObject;
    expect(copy?.metadata.annotations?.[EventBackKeys.HostEventDigest]).toBe(
      hostEventDigest(stored),
    );
  });
});

/** A host Pod that is tenant `prod`'s copy (in the same host namespace). */
function otherTenantPod(hostApi: MemoryCluster, name: string): KubeObject {
  hostApi.seed({
    ...POD,
    metadata: {
      namespace: HOST_NS,
      name,
      labels: {
        [Labels.ManagedBy]: 'tenantplane',
        [Labels.Tenant]: 'prod',
        [Labels.VirtualNamespace]: 'shop',
        [Labels.Kind]: 'Pod',
      },
      annotations: {
        'tenantplane.io/virtual-namespace': 'shop',
        'tenantplane.io/virtual-name': 'web',
        'tenantplane.io/virtual-uid': 'prod-uid',
      },
    },
  });
  return hostApi.peek(POD, HOST_NS, name) as KubeObject;
}

describe('which Events come back (spec.workloads.eventsBack)', () => {
  it.each([
    { eventsBack: 'Warning' as const, copied: ['BackOff'], selector: 'type=Warning' },
    { eventsBack: 'All' as const, copied: ['BackOff', 'Scheduled'], selector: undefined },
    { eventsBack: 'None' as const, copied: [], selector: 'no listing' },
  ])('$eventsBack: copies $copied', async ({ eventsBack, copied, selector }) => {
    const { tenantApi, hostApi, run, hostPod } = await setup([tenantPod('web')], eventsBack);
    hostApi.seed(hostEvent(hostPod('web')));
    hostApi.seed(hostEvent(hostPod('web'), { type: 'Warning', reason: 'BackOff' }));
    const before = hostApi.callsOf('list').length;
    expect((await run()).errors).toEqual([]);
    const reasons = tenantEvents(tenantApi)
      .map((e) => String(e.reason))
      .sort();
    expect(reasons).toEqual(copied);
    const listings = hostApi
      .callsOf('list')
      .slice(before)
      .filter((c) => c.kind === 'Event');
    if (selector === 'no listing') expect(listings).toEqual([]);
    else expect(listings.map((c) => c.options?.fieldSelector)).toEqual([selector]);
  });
});
