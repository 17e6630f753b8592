/**
 * Apply: planApply decides from what the host listing showed at the name; applyObject carries the
 * plan out under the write budget (create-only, update with the observed resourceVersion, nothing
 * on a dry run) and settles a create race by the provenance of whoever holds the name.
 * An occupied host name, pass by pass: `apply-occupied.test.ts`.
 */
import { describe, expect, it } from '@jest/globals';
import { dryRunClient } from '../../../../lib/engine/context/dry-run.js';
import type { TenantSource as SourceIdentity } from '../../../../lib/engine/names/reverse-mapping.js';
import { type ApplyOutcome, applyObject, planApply } from '../../../../lib/engine/object/apply.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { type FailureRule, MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, cm, HOST_NS, hn, hostCopyOf, SECRET, secret, TENANT } from '../support.js';

const SOURCE: SourceIdentity = {
  tenant: TENANT,
  kind: 'ConfigMap',
  virtualNamespace: 'default',
  virtualName: 'app',
};
const APP = hn('default', 'app');

/** The desired host object for tenant ConfigMap default/app with `data`. */
const desiredApp = (data: Record<string, string> = { k: 'v' }) =>
  hostCopyOf(cm('default', 'app', data));

/** A host object as a listing returns it: uid and resourceVersion filled in. */
function listed(object: KubeObject): KubeObject {
  return {
    ...object,
    metadata: { ...object.metadata, uid: 'host-uid-1', resourceVersion: '17' },
  };
}

/** Another tenant's copy, sitting at the name of default/app. */
function otherTenantAtApp(): KubeObject {
  const copy = hostCopyOf(cm('default', 'app'), 'prod');
  copy.metadata.name = APP;
  return copy;
}

/** A copy of default/other of this tenant, sitting at the name of default/app. */
function otherSourceAtApp(): KubeObject {
  const copy = hostCopyOf(cm('default', 'other'));
  copy.metadata.name = APP;
  return copy;
}

/** An object tenantplane does not manage, at the name of default/app. */
function foreignAtApp(): KubeObject {
  return {
    ...CONFIGMAP,
    metadata: { namespace: HOST_NS, name: APP },
    data: { owner: 'someone-else' },
  };
}

describe('planApply', () => {
  const cases: Array<{
    name: string;
    observed: KubeObject | undefined;
    expectedAction: 'Create' | 'Update' | 'InSync' | 'Skip';
    expectedChanged?: string[];
    expectedReason?: RegExp;
  }> = [
    { name: 'nothing at the name', observed: undefined, expectedAction: 'Create' },
    {
      name: 'this source’s copy, unchanged',
      observed: listed(desiredApp()),
      expectedAction: 'InSync',
    },
    {
      name: 'this source’s copy, with host-added labels and annotations only',
      observed: (() => {
        const copy = listed(desiredApp());
        copy.metadata.labels = { ...copy.metadata.labels, 'host.example.com/team': 'a' };
        copy.metadata.annotations = { ...copy.metadata.annotations, 'host.example.com/x': 'y' };
        return copy;
      })(),
      expectedAction: 'InSync',
    },
    {
      name: 'this source’s copy with other data',
      observed: listed(desiredApp({ k: 'old' })),
      expectedAction: 'Update',
      expectedChanged: ['data'],
    },
    {
      name: 'this source’s copy with a label the tenant removed',
      observed: listed(hostCopyOf(cm('default', 'app', { k: 'v' }, { labels: { gone: '1' } }))),
      expectedAction: 'Update',
      expectedChanged: ['labels', 'annotations'],
    },
    {
      name: 'this source’s copy with a field only the host has',
      observed: { ...listed(desiredApp()), binaryData: { b: 'AA==' } },
      expectedAction: 'Update',
      expectedChanged: ['binaryData'],
    },
    {
      name: 'another tenant’s copy',
      observed: listed(otherTenantAtApp()),
      expectedAction: 'Skip',
      expectedReason:
        /^host name tenant-dev\/app-x-default-x-dev is occupied by an object of another tenant \(a name collision\); left it untouched$/,
    },
    {
      name: 'another source of this tenant',
      observed: listed(otherSourceAtApp()),
      expectedAction: 'Skip',
      expectedReason:
        /occupied by ConfigMap default\/other of tenant cluster "dev" \(a name collision\)/,
    },
    {
      name: 'a foreign object',
      observed: listed(foreignAtApp()),
      expectedAction: 'Skip',
      expectedReason:
        /^host name tenant-dev\/app-x-default-x-dev is occupied by an object tenantplane does not manage \(a foreign object\); left it untouched$/,
    },
    {
      name: 'a copy whose managed-by label someone changed',
      observed: (() => {
        const copy = listed(desiredApp());
        copy.metadata.labels = { ...copy.metadata.labels, 'app.kubernetes.io/managed-by': 'helm' };
        return copy;
      })(),
      expectedAction: 'Skip',
      expectedReason: /a foreign object/,
    },
  ];
  it.each(cases)('$name -> $expectedAction', (c) => {
    const plan = planApply(desiredApp(), c.observed, SOURCE);
    expect(plan.action).toBe(c.expectedAction);
    if (plan.action === 'Update') {
      expect(plan.changed).toEqual(c.expectedChanged);
      // The update carries the observed identity, so a concurrent write is a Conflict.
      expect(plan.body.metadata).toMatchObject({ uid: 'host-uid-1', resourceVersion: '17' });
      expect(plan.body.data).toEqual({ k: 'v' });
    }
    if (plan.action === 'Skip') expect(plan.reason).toMatch(c.expectedReason ?? /never/);
  });

  it('names the changed fields, never their values', () => {
    const tenant = { ...secret('default', 'db'), data: { password: 'bmV3LXNlY3JldA==' } };
    const observed = listed(hostCopyOf({ ...tenant, data: { password: 'b2xkLXNlY3JldA==' } }));
    const plan = planApply(hostCopyOf(tenant), observed, {
      ...SOURCE,
      kind: 'Secret',
      virtualName: 'db',
    });
    expect(plan).toMatchObject({ action: 'Update', changed: ['data'] });
    if (plan.action !== 'Update') throw new Error('expected an Update');
    expect(plan.changed.join()).not.toMatch(/bmV3|b2xk|password/);
  });
});

interface ApplyCase {
  name: string;
  /** What the host holds at the time of the apply. */
  hostState: KubeObject[];
  /** What the host listing showed at the name: the stored object, or nothing (a stale listing). */
  observed: 'stored' | 'nothing';
  desired?: KubeObject;
  dryRun?: boolean;
  /** Writes the budget still allows (unlimited when left out). */
  writesLeft?: number;
  failWhen?: FailureRule;
  expectedOutcome: ApplyOutcome;
  /** `method name` of every request, in order. */
  expectedCalls: string[];
  /** How many writes were asked of the budget. */
  expectedReservations: number;
  /** The data stored at the name afterwards (undefined: nothing there). */
  expectedHostData: unknown;
}

/** A reason matching `pattern` (typed as the string it stands for). */
const matching = (pattern: RegExp): string => expect.stringMatching(pattern) as unknown as string;

const CREATE_REASON = 'no host copy of tenant ConfigMap default/app yet';
const UPDATE_REASON = 'host copy differs from the tenant source in data';
const fail =
  (method: string, error: ClusterError): FailureRule =>
  (call) =>
    call.method === method ? error : undefined;

const APPLY_CASES: ApplyCase[] = [
  {
    name: 'nothing there: Create',
    hostState: [],
    observed: 'nothing',
    expectedOutcome: { result: 'decided', action: 'Create', reason: CREATE_REASON },
    expectedCalls: [`create ${APP}`],
    expectedReservations: 1,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'an outdated copy: Update',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'stored',
    expectedOutcome: { result: 'decided', action: 'Update', reason: UPDATE_REASON },
    expectedCalls: [`update ${APP}`],
    expectedReservations: 1,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'an identical copy: in sync, no request and no write asked',
    hostState: [desiredApp()],
    observed: 'stored',
    expectedOutcome: { result: 'in-sync' },
    expectedCalls: [],
    expectedReservations: 0,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'another tenant’s copy: Skip from the listing, no request',
    hostState: [otherTenantAtApp()],
    observed: 'stored',
    expectedOutcome: {
      result: 'decided',
      action: 'Skip',
      reason: matching(/an object of another tenant \(a name collision\)/),
    },
    expectedCalls: [],
    expectedReservations: 0,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'a foreign occupant: Skip from the listing, no request',
    hostState: [foreignAtApp()],
    observed: 'stored',
    expectedOutcome: {
      result: 'decided',
      action: 'Skip',
      reason: matching(/a foreign object/),
    },
    expectedCalls: [],
    expectedReservations: 0,
    expectedHostData: { owner: 'someone-else' },
  },
  {
    name: 'a Create the budget refuses is deferred',
    hostState: [],
    observed: 'nothing',
    writesLeft: 0,
    expectedOutcome: { result: 'deferred' },
    expectedCalls: [],
    expectedReservations: 1,
    expectedHostData: undefined,
  },
  {
    name: 'an Update the budget refuses is deferred',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'stored',
    writesLeft: 0,
    expectedOutcome: { result: 'deferred' },
    expectedCalls: [],
    expectedReservations: 1,
    expectedHostData: { k: 'old' },
  },
  {
    name: 'a dry-run Create spends the budget and sends nothing',
    hostState: [],
    observed: 'nothing',
    dryRun: true,
    expectedOutcome: { result: 'decided', action: 'Create', reason: CREATE_REASON },
    expectedCalls: [],
    expectedReservations: 1,
    expectedHostData: undefined,
  },
  {
    name: 'a dry-run Update spends the budget and sends nothing',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'stored',
    dryRun: true,
    expectedOutcome: { result: 'decided', action: 'Update', reason: UPDATE_REASON },
    expectedCalls: [],
    expectedReservations: 1,
    expectedHostData: { k: 'old' },
  },
  {
    name: 'a dry run over a budget already spent is deferred too',
    hostState: [],
    observed: 'nothing',
    dryRun: true,
    writesLeft: 0,
    expectedOutcome: { result: 'deferred' },
    expectedCalls: [],
    expectedReservations: 1,
    expectedHostData: undefined,
  },
  {
    name: 'race: this source’s identical copy appeared; re-read, in sync',
    hostState: [desiredApp()],
    observed: 'nothing',
    expectedOutcome: { result: 'in-sync' },
    expectedCalls: [`create ${APP}`, `get ${APP}`],
    expectedReservations: 1,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'race: this source’s outdated copy appeared; re-read, Update',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'nothing',
    expectedOutcome: { result: 'decided', action: 'Update', reason: UPDATE_REASON },
    expectedCalls: [`create ${APP}`, `get ${APP}`, `update ${APP}`],
    expectedReservations: 2,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'race: the Update after the re-read is deferred when the budget is spent',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'nothing',
    writesLeft: 1,
    expectedOutcome: { result: 'deferred' },
    expectedCalls: [`create ${APP}`, `get ${APP}`],
    expectedReservations: 2,
    expectedHostData: { k: 'old' },
  },
  {
    name: 'race: a foreign object appeared; re-read, Skip',
    hostState: [foreignAtApp()],
    observed: 'nothing',
    expectedOutcome: {
      result: 'decided',
      action: 'Skip',
      reason: matching(/a foreign object/),
    },
    expectedCalls: [`create ${APP}`, `get ${APP}`],
    expectedReservations: 1,
    expectedHostData: { owner: 'someone-else' },
  },
  {
    name: 'race: another tenant’s copy appeared; re-read, Skip',
    hostState: [otherTenantAtApp()],
    observed: 'nothing',
    expectedOutcome: {
      result: 'decided',
      action: 'Skip',
      reason: matching(/an object of another tenant/),
    },
    expectedCalls: [`create ${APP}`, `get ${APP}`],
    expectedReservations: 1,
    expectedHostData: { k: 'v' },
  },
  {
    name: 'a rejected create is still the Create decision, with its error',
    hostState: [],
    observed: 'nothing',
    failWhen: fail('create', new ClusterError('Invalid', 'denied by admission', { status: 422 })),
    expectedOutcome: {
      result: 'decided',
      action: 'Create',
      reason: CREATE_REASON,
      error: expect.objectContaining({ reason: 'Invalid', message: 'denied by admission' }),
    },
    expectedCalls: [`create ${APP}`],
    expectedReservations: 1,
    expectedHostData: undefined,
  },
  {
    name: 'a conflicting update is still the Update decision, with its error',
    hostState: [desiredApp({ k: 'old' })],
    observed: 'stored',
    failWhen: fail('update', new ClusterError('Conflict', 'the object has been modified')),
    expectedOutcome: {
      result: 'decided',
      action: 'Update',
      reason: UPDATE_REASON,
      error: expect.objectContaining({ reason: 'Conflict' }),
    },
    expectedCalls: [`update ${APP}`],
    expectedReservations: 1,
    expectedHostData: { k: 'old' },
  },
];

describe('applyObject', () => {
  it.each(APPLY_CASES)('$name', async (c) => {
    const hostApi = new MemoryCluster('host').seed(...c.hostState);
    if (c.failWhen) hostApi.failWhen(c.failWhen);
    const desired = c.desired ?? desiredApp();
    const observed = c.observed === 'stored' ? hostApi.peek(desired, HOST_NS, APP) : undefined;
    let reservations = 0;
    const reserveWrite = () => {
      reservations += 1;
      return c.writesLeft === undefined || reservations <= c.writesLeft;
    };

    const outcome = await applyObject(
      {
        hostApi: c.dryRun === true ? dryRunClient(hostApi) : hostApi,
        budget: { reserveWrite },
        traits: {},
      },
      desired,
      observed,
      SOURCE,
    );

    expect(outcome).toEqual(c.expectedOutcome);
    expect(hostApi.calls.map((call) => `${call.method} ${call.name}`)).toEqual(c.expectedCalls);
    expect(reservations).toBe(c.expectedReservations);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, APP)?.data).toEqual(c.expectedHostData);
  });

  it('an update carries the observed resourceVersion and keeps the host’s metadata', async () => {
    const stale = {
      ...desiredApp({ k: 'old' }),
      metadata: { ...desiredApp().metadata, finalizers: ['x/y'] },
    };
    const hostApi = new MemoryCluster('host').seed(stale);
    const observed = hostApi.peek(CONFIGMAP, HOST_NS, APP);
    const sent: KubeObject[] = [];
    const update = hostApi.update.bind(hostApi);
    hostApi.update = async (object) => {
      sent.push(structuredClone(object));
      return update(object);
    };
    await applyObject(
      { hostApi, budget: { reserveWrite: () => true }, traits: {} },
      desiredApp(),
      observed,
      SOURCE,
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.metadata).toMatchObject({
      uid: observed?.metadata.uid,
      resourceVersion: observed?.metadata.resourceVersion,
      finalizers: ['x/y'],
    });
  });

  it('an update reason names the changed fields of a Secret, never its data', async () => {
    const tenant = { ...secret('default', 'db'), data: { password: 'bmV3LXNlY3JldA==' } };
    const old = hostCopyOf({ ...tenant, data: { password: 'b2xkLXNlY3JldA==' } });
    const hostApi = new MemoryCluster('host').seed(old);
    const outcome = await applyObject(
      { hostApi, budget: { reserveWrite: () => true }, traits: {} },
      hostCopyOf(tenant),
      hostApi.peek(SECRET, HOST_NS, old.metadata.name),
      { ...SOURCE, kind: 'Secret', virtualName: 'db' },
    );
    expect(outcome).toEqual({ result: 'decided', action: 'Update', reason: UPDATE_REASON });
    expect(JSON.stringify(outcome)).not.toMatch(/bmV3|b2xk|password/);
  });

  it('a name taken and released again during the create is a Create with an error', async () => {
    const hostApi = new MemoryCluster('host').seed(foreignAtApp());
    // The occupant is gone by the time the engine re-reads the name.
    hostApi.failWhen((call) => {
      if (call.method === 'get') hostApi.remove(CONFIGMAP, HOST_NS, APP);
      return undefined;
    });
    const outcome = await applyObject(
      { hostApi, budget: { reserveWrite: () => true }, traits: {} },
      desiredApp(),
      undefined,
      SOURCE,
    );
    expect(outcome).toEqual({
      result: 'decided',
      action: 'Create',
      reason: CREATE_REASON,
      error: new Error('the host name was taken and released again during the create'),
    });
    expect(hostApi.calls.map((call) => call.method)).toEqual(['create', 'get']);
  });

  it('a failing re-read after the race throws (the caller records it, nothing is decided)', async () => {
    const hostApi = new MemoryCluster('host').seed(foreignAtApp());
    const forbidden = new ClusterError('Forbidden', 'get is forbidden');
    hostApi.failWhen(fail('get', forbidden));
    await expect(
      applyObject(
        { hostApi, budget: { reserveWrite: () => true }, traits: {} },
        desiredApp(),
        undefined,
        SOURCE,
      ),
    ).rejects.toBe(forbidden);
  });

  it('only AlreadyExists starts the re-read: other create failures make no further request', async () => {
    const hostApi = new MemoryCluster('host');
    hostApi.failWhen(fail('create', new ClusterError('Conflict', 'something else')));
    const outcome = await applyObject(
      { hostApi, budget: { reserveWrite: () => true }, traits: {} },
      desiredApp(),
      undefined,
      SOURCE,
    );
    expect(outcome).toMatchObject({ result: 'decided', action: 'Create' });
    expect(hostApi.calls.map((call) => call.method)).toEqual(['create']);
  });
});
