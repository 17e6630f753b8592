/**
 * The tenant side of a kind: TenantLister pages the listing (the first request of a pass that
 * gets no answer means the tenant is unreachable); TenantView takes each page in as work.
 */
import { describe, expect, it } from '@jest/globals';
import { formatObjectError } from '../../../../lib/engine/context/object-errors.js';
import { ClusterUnreachableError } from '../../../../lib/engine/errors.js';
import { compileKindRule, hostName } from '../../../../lib/engine/index.js';
import { PAGE_BYTES } from '../../../../lib/engine/listing/page-bytes.js';
import { TenantLister } from '../../../../lib/engine/listing/tenant-listing.js';
import { TenantView } from '../../../../lib/engine/pipeline/tenant-view.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  cm,
  HOST_NS,
  hostCopyOf,
  passContext,
  SECRET,
  secret,
  TENANT,
} from '../support.js';

const transport = () => new ClusterError('Transport', 'connect ECONNREFUSED 10.0.0.2:6443');

describe('TenantLister', () => {
  it('pages with the page size and the continue token', async () => {
    const tenantApi = new MemoryCluster('tenant').seed(cm('a', '1'), cm('a', '2'), cm('a', '3'));
    const lister = new TenantLister(tenantApi, 2);
    const first = await lister.page(CONFIGMAP, undefined);
    expect(first.items).toHaveLength(2);
    const second = await lister.page(CONFIGMAP, first.continueToken);
    expect(second.items.map((o) => o.metadata.name)).toEqual(['3']);
    expect(second.continueToken).toBeUndefined();
    expect(tenantApi.callsOf('list').map((c) => c.options)).toEqual([
      { limit: 2, maxBytes: 2 * PAGE_BYTES },
      { limit: 2, maxBytes: 2 * PAGE_BYTES, continueToken: first.continueToken },
    ]);
    // All namespaces: no namespace on the request.
    expect(tenantApi.callsOf('list').every((c) => c.namespace === undefined)).toBe(true);
  });

  const cases: Array<{
    name: string;
    /** Which request of the pass fails (1 = the first). */
    failingCall: number;
    failure: () => ClusterError;
    expectedUnreachable: boolean;
  }> = [
    {
      name: 'the first request, Transport',
      failingCall: 1,
      failure: transport,
      expectedUnreachable: true,
    },
    {
      name: 'a later request, Transport',
      failingCall: 2,
      failure: transport,
      expectedUnreachable: false,
    },
    {
      name: 'the first request, Forbidden',
      failingCall: 1,
      failure: () => new ClusterError('Forbidden', 'configmaps is forbidden'),
      expectedUnreachable: false,
    },
  ];
  it.each(cases)('$name', async ({ failingCall, failure, expectedUnreachable }) => {
    const tenantApi = new MemoryCluster('tenant').seed(cm('a', '1'));
    const error = failure();
    let calls = 0;
    tenantApi.failWhen(() => {
      calls += 1;
      return calls === failingCall ? error : undefined;
    });
    const lister = new TenantLister(tenantApi, 10);
    // Earlier requests (of any kind) succeed.
    for (let i = 1; i < failingCall; i++) await lister.page(SECRET, undefined);
    const thrown = await lister.page(CONFIGMAP, undefined).catch((e: unknown) => e);
    if (expectedUnreachable) {
      expect(thrown).toBeInstanceOf(ClusterUnreachableError);
      expect(thrown).toMatchObject({ role: 'tenant' });
      expect((thrown as Error).cause).toBe(error);
    } else {
      expect(thrown).toBe(error);
    }
  });

  it('a failed first request still counts: the next Transport failure is rethrown as is', async () => {
    const tenantApi = new MemoryCluster('tenant');
    const errors = [new ClusterError('Forbidden', 'no'), transport()];
    tenantApi.failWhen(() => errors.shift());
    const lister = new TenantLister(tenantApi, 10);
    await expect(lister.page(SECRET, undefined)).rejects.toMatchObject({ reason: 'Forbidden' });
    await expect(lister.page(CONFIGMAP, undefined)).rejects.toMatchObject({ reason: 'Transport' });
  });
});

describe('TenantLister.prefetch', () => {
  const outcome = { resumed: true as const, changes: [], resourceVersion: '7' };

  it('starts the watch at once and hands that very watch to the kind later, once', async () => {
    const calls: string[] = [];
    const tenantApi = Object.assign(new MemoryCluster('tenant'), {
      watchChanges: async (kind: { kind: string }, o: { resourceVersion: string }) => {
        calls.push(`${kind.kind}@${o.resourceVersion}`);
        return outcome;
      },
    });
    const lister = new TenantLister(tenantApi, 10);
    lister.prefetch(CONFIGMAP, '5');
    lister.prefetch(SECRET, '6');
    expect(calls).toEqual(['ConfigMap@5', 'Secret@6']);
    expect(await lister.watch(CONFIGMAP, '5')).toEqual({ ...outcome, seen: 0 });
    expect(calls).toHaveLength(2);
    await lister.watch(CONFIGMAP, '5'); // taken already: a new watch
    expect(calls).toEqual(['ConfigMap@5', 'Secret@6', 'ConfigMap@5']);
  });

  it('a prefetched watch that fails before its kind is reached rejects only when taken', async () => {
    const stall = transport();
    const tenantApi = Object.assign(new MemoryCluster('tenant'), {
      watchChanges: () => Promise.reject(stall),
    });
    const lister = new TenantLister(tenantApi, 10);
    lister.prefetch(CONFIGMAP, '5');
    await new Promise((resolve) => setImmediate(resolve)); // no unhandled rejection meanwhile
    await expect(lister.watch(CONFIGMAP, '5')).rejects.toBe(stall);
  });
});

describe('TenantView.intake', () => {
  function view(rule = compileKindRule({ apiVersion: 'v1', kind: 'ConfigMap' })) {
    const ctx = passContext();
    return { ctx, view: new TenantView(ctx, rule) };
  }

  it('takes in an in-scope object: listed, desired, and its desired host object', () => {
    const { ctx, view: v } = view();
    const work = v.intake([cm('team-a', 'app')]);
    expect(work).toEqual([
      {
        desired: hostCopyOf(cm('team-a', 'app')),
        source: {
          tenant: TENANT,
          kind: 'ConfigMap',
          virtualNamespace: 'team-a',
          virtualName: 'app',
        },
      },
    ]);
    expect(work[0]?.desired.metadata).toMatchObject({
      name: hostName('app', 'team-a', TENANT),
      namespace: HOST_NS,
    });
    expect([...v.listed]).toEqual(['team-a/app']);
    expect([...v.desired]).toEqual(['team-a/app']);
    expect(v.count).toBe(1);
    expect(ctx.ledger.objectsSeen).toEqual({ ConfigMap: 1 });
    expect(ctx.ledger.errors.errors).toEqual([]);
  });

  const cases: Array<{
    name: string;
    items: KubeObject[];
    rule?: Parameters<typeof compileKindRule>[0];
    expectedWork: string[];
    expectedListed: string[];
    expectedDesired: string[];
    /** The errors recorded, as `formatObjectError` prints them. */
    expectedErrors: unknown[];
  }> = [
    {
      name: 'an object without a name is an error and nothing else',
      items: [
        { ...CONFIGMAP, metadata: { namespace: 'a', name: '' } },
        { ...CONFIGMAP, metadata: { namespace: 'a' } } as unknown as KubeObject,
        cm('a', 'ok'),
      ],
      expectedWork: ['a/ok'],
      expectedListed: ['a/ok'],
      expectedDesired: ['a/ok'],
      expectedErrors: [
        'ConfigMap: a tenant object without a name was ignored',
        'ConfigMap: a tenant object without a name was ignored',
      ],
    },
    {
      name: 'objects without a namespace are reported once per kind',
      items: [
        { ...CONFIGMAP, metadata: { name: 'x' } },
        { ...CONFIGMAP, metadata: { name: 'y', namespace: '' } },
        cm('a', 'ok'),
      ],
      expectedWork: ['a/ok'],
      expectedListed: ['a/ok'],
      expectedDesired: ['a/ok'],
      expectedErrors: [
        'ConfigMap: ConfigMap objects without a namespace cannot be synced; only namespaced kinds can',
      ],
    },
    {
      name: 'excluded objects are listed but not desired, and make no work',
      rule: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        exclude: { namespaces: ['private'], names: ['local'], labelSelector: 'sync=off' },
      },
      items: [
        cm('private', 'a'),
        cm('default', 'local'),
        cm('default', 'off', { k: 'v' }, { labels: { sync: 'off' } }),
        cm('kube-system', 'coredns'),
        cm('default', 'kube-root-ca.crt'),
        cm('default', 'kept'),
      ],
      expectedWork: ['default/kept'],
      expectedListed: [
        'private/a',
        'default/local',
        'default/off',
        'kube-system/coredns',
        'default/kube-root-ca.crt',
        'default/kept',
      ],
      expectedDesired: ['default/kept'],
      expectedErrors: [],
    },
    {
      name: 'a service-account token Secret is listed, never desired',
      rule: { apiVersion: 'v1', kind: 'Secret' },
      items: [
        secret('default', 'token', 'kubernetes.io/service-account-token'),
        secret('default', 'db'),
      ],
      expectedWork: ['default/db'],
      expectedListed: ['default/token', 'default/db'],
      expectedDesired: ['default/db'],
      expectedErrors: [],
    },
    {
      name: 'an object the transform cannot copy is that object’s error; the page goes on',
      items: [{ ...cm('a', 'odd'), data: { k: 'v' }, unclonable: () => 'x' }, cm('a', 'ok')],
      expectedWork: ['a/ok'],
      expectedListed: ['a/odd', 'a/ok'],
      // Still desired: its existing host copy (if any) is kept, not garbage-collected.
      expectedDesired: ['a/odd', 'a/ok'],
      // The message is the clone error's (its wording depends on the runtime).
      expectedErrors: [expect.stringMatching(/^ConfigMap a\/odd: /)],
    },
  ];
  it.each(cases)('$name', (c) => {
    const { ctx, view: v } = view(
      compileKindRule(c.rule ?? { apiVersion: 'v1', kind: 'ConfigMap' }),
    );
    const work = v.intake(c.items);
    expect(work.map((w) => `${w.source.virtualNamespace}/${w.source.virtualName}`)).toEqual(
      c.expectedWork,
    );
    expect([...v.listed]).toEqual(c.expectedListed);
    expect([...v.desired]).toEqual(c.expectedDesired);
    expect(ctx.ledger.errors.errors.map(formatObjectError)).toEqual(c.expectedErrors);
    // Every object is counted, whatever became of it.
    expect(v.count).toBe(c.items.length);
    expect(ctx.ledger.objectsSeen[(c.rule ?? CONFIGMAP).kind]).toBe(c.items.length);
  });

  it('reports objects without a namespace once per kind, across pages', () => {
    const { ctx, view: v } = view();
    v.intake([{ ...CONFIGMAP, metadata: { name: 'x' } }]);
    v.intake([{ ...CONFIGMAP, metadata: { name: 'y' } }]);
    expect(ctx.ledger.errors.errors).toHaveLength(1);
    // Another kind's view reports its own.
    const secrets = new TenantView(ctx, compileKindRule({ apiVersion: 'v1', kind: 'Secret' }));
    secrets.intake([{ ...SECRET, metadata: { name: 'z' } }]);
    expect(ctx.ledger.errors.errors.map((e) => e.kind)).toEqual(['ConfigMap', 'Secret']);
  });

  it('accumulates across pages', () => {
    const { ctx, view: v } = view();
    v.intake([cm('a', '1'), cm('a', '2')]);
    v.intake([cm('b', '1')]);
    expect(v.count).toBe(3);
    expect([...v.desired]).toEqual(['a/1', 'a/2', 'b/1']);
    expect(ctx.ledger.objectsSeen).toEqual({ ConfigMap: 3 });
  });
});
