/**
 * Budget: effectiveBudget's defaults and clamping, and PassBounds (the write budget, the deadline
 * latched when first seen, backing off on 429). Then the pass as a whole under its bounds:
 * budgets, pagination, concurrency, failures, dry run, status, sinks.
 */
import { describe, expect, it } from '@jest/globals';
import {
  type Budget,
  DEFAULT_BUDGET,
  effectiveBudget,
  PassBounds,
} from '../../../../lib/engine/bounds/budget.js';
import { ClusterUnreachableError, PassError } from '../../../../lib/engine/errors.js';
import {
  InvalidPolicyError,
  runPass,
  TenantClusterNotFoundError,
} from '../../../../lib/engine/index.js';
import {
  ClusterError,
  type DecisionSink,
  type KubeObject,
  TENANT_CLUSTER,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hostCopyOf,
  hostSummary,
  RecordingSink,
  SECRET,
  secret,
  TENANT,
  writesBesideFailureReport,
} from '../support.js';

describe('effectiveBudget', () => {
  const cases: Array<{ name: string; partial: Partial<Budget> | undefined; expected: Budget }> = [
    { name: 'nothing given', partial: undefined, expected: { pageSize: 500, concurrency: 8 } },
    { name: 'an empty budget', partial: {}, expected: { pageSize: 500, concurrency: 8 } },
    {
      name: 'explicit undefined means the default',
      partial: { pageSize: undefined, concurrency: undefined, maxWrites: undefined },
      expected: { pageSize: 500, concurrency: 8 },
    },
    {
      name: 'values given are kept',
      partial: { pageSize: 50, concurrency: 2, maxWrites: 10, deadline: 1_234 },
      expected: { pageSize: 50, concurrency: 2, maxWrites: 10, deadline: 1_234 },
    },
    {
      name: 'zero page size and concurrency clamp to 1',
      partial: { pageSize: 0, concurrency: 0 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'negative page size and concurrency clamp to 1',
      partial: { pageSize: -5, concurrency: -1 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'fractions round down',
      partial: { pageSize: 2.9, concurrency: 3.5, maxWrites: 4.99 },
      expected: { pageSize: 2, concurrency: 3, maxWrites: 4 },
    },
    {
      name: 'a fraction below 1 clamps to 1',
      partial: { pageSize: 0.5, concurrency: 0.2 },
      expected: { pageSize: 1, concurrency: 1 },
    },
    {
      name: 'non-finite page size and concurrency mean the default',
      partial: { pageSize: Number.NaN, concurrency: Number.POSITIVE_INFINITY },
      expected: { pageSize: 500, concurrency: 8 },
    },
    {
      name: 'a write budget of 0 is kept (no writes at all)',
      partial: { maxWrites: 0 },
      expected: { pageSize: 500, concurrency: 8, maxWrites: 0 },
    },
    {
      name: 'a negative write budget clamps to 0',
      partial: { maxWrites: -3 },
      expected: { pageSize: 500, concurrency: 8, maxWrites: 0 },
    },
    {
      name: 'a deadline of 0 is kept',
      partial: { deadline: 0 },
      expected: { pageSize: 500, concurrency: 8, deadline: 0 },
    },
  ];
  it.each(cases)('$name', ({ partial, expected }) => {
    expect(effectiveBudget(partial)).toEqual(expected);
  });

  it('the defaults are frozen and never shared with a result', () => {
    expect(Object.isFrozen(DEFAULT_BUDGET)).toBe(true);
    const budget = effectiveBudget();
    budget.pageSize = 1;
    expect(effectiveBudget().pageSize).toBe(500);
  });
});

describe('PassBounds', () => {
  const DEADLINE = Date.parse('2030-01-01T00:01:00.000Z');

  function bounds(budget: Partial<Budget> = {}, start = DEADLINE - 60_000) {
    const clock = { time: start, now: () => clock.time };
    return { clock, bounds: new PassBounds(effectiveBudget(budget), clock) };
  }

  const writeCases: Array<{
    name: string;
    maxWrites: number | undefined;
    attempts: number;
    expectedGranted: boolean[];
    expectedReason: string | undefined;
  }> = [
    {
      name: 'no write budget grants every write',
      maxWrites: undefined,
      attempts: 5,
      expectedGranted: [true, true, true, true, true],
      expectedReason: undefined,
    },
    {
      name: 'a budget of 2 grants 2, then refuses',
      maxWrites: 2,
      attempts: 4,
      expectedGranted: [true, true, false, false],
      expectedReason: 'the write budget of 2 writes was spent',
    },
    {
      name: 'a budget of 1 speaks in the singular',
      maxWrites: 1,
      attempts: 2,
      expectedGranted: [true, false],
      expectedReason: 'the write budget of 1 write was spent',
    },
    {
      name: 'a budget of 0 refuses the first write',
      maxWrites: 0,
      attempts: 1,
      expectedGranted: [false],
      expectedReason: 'the write budget of 0 writes was spent',
    },
    {
      name: 'a budget exactly spent is not yet a stop',
      maxWrites: 2,
      attempts: 2,
      expectedGranted: [true, true],
      expectedReason: undefined,
    },
  ];
  it.each(writeCases)('$name', ({ maxWrites, attempts, expectedGranted, expectedReason }) => {
    const { bounds: b } = bounds(maxWrites === undefined ? {} : { maxWrites });
    const granted = Array.from({ length: attempts }, () => b.reserveWrite());
    expect(granted).toEqual(expectedGranted);
    expect(b.writes).toBe(expectedGranted.filter(Boolean).length);
    expect(b.stopReason).toBe(expectedReason);
    // A spent write budget defers writes; it does not stop the pass (listings and GC go on).
    expect(b.isStopped()).toBe(false);
    expect(b.deferred).toBe(expectedGranted.filter((g) => !g).length);
  });

  it('stops at the deadline, not before, and latches it', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE });
    expect(b.isStopped()).toBe(false);
    clock.time = DEADLINE - 1;
    expect(b.isStopped()).toBe(false);
    expect(b.stopReason).toBeUndefined();
    clock.time = DEADLINE;
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toBe('the pass deadline (2030-01-01T00:01:00.000Z) was reached');
    // A clock that goes back does not undo the stop.
    clock.time = DEADLINE - 30_000;
    expect(b.isStopped()).toBe(true);
  });

  it('a passed deadline is only a reason once it has been seen', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE });
    clock.time = DEADLINE + 1;
    expect(b.stopReason).toBeUndefined();
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toMatch(/deadline/);
  });

  it('the deadline seen first stays the reason when the write budget is spent later', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE, maxWrites: 1 });
    clock.time = DEADLINE;
    expect(b.isStopped()).toBe(true);
    expect(b.reserveWrite()).toBe(true);
    expect(b.reserveWrite()).toBe(false);
    expect(b.stopReason).toMatch(/^the pass deadline .* was reached$/);
  });

  it('the write budget spent first stays the reason when the deadline passes later', () => {
    const { clock, bounds: b } = bounds({ deadline: DEADLINE, maxWrites: 0 });
    expect(b.reserveWrite()).toBe(false);
    clock.time = DEADLINE + 1;
    expect(b.isStopped()).toBe(true);
    expect(b.stopReason).toBe('the write budget of 0 writes was spent');
  });

  const throttleCases: Array<{ name: string; error: unknown; expectedReason: string | undefined }> =
    [
      {
        name: 'a 429 with Retry-After',
        error: new ClusterError('TooManyRequests', 'slow down', { retryAfterSeconds: 5 }),
        expectedReason:
          'an API server asked for less load (429 Too Many Requests, retry after 5 s), so the pass stopped early',
      },
      {
        name: 'a 429 without Retry-After',
        error: new ClusterError('TooManyRequests', 'slow down'),
        expectedReason:
          'an API server asked for less load (429 Too Many Requests), so the pass stopped early',
      },
      {
        name: 'a Conflict',
        error: new ClusterError('Conflict', 'modified'),
        expectedReason: undefined,
      },
      {
        name: 'a Forbidden',
        error: new ClusterError('Forbidden', 'no'),
        expectedReason: undefined,
      },
      {
        name: 'a plain Error that mentions 429',
        error: new Error('429 Too Many Requests'),
        expectedReason: undefined,
      },
      { name: 'not an error at all', error: 'TooManyRequests', expectedReason: undefined },
    ];
  it.each(throttleCases)('backOffIfThrottled: $name', ({ error, expectedReason }) => {
    const { bounds: b } = bounds();
    b.backOffIfThrottled(error);
    expect(b.stopReason).toBe(expectedReason);
    expect(b.isStopped()).toBe(expectedReason !== undefined);
  });

  it('a 429 after another bound keeps the first reason; a 429 first stays the reason', () => {
    const throttled = new ClusterError('TooManyRequests', 'slow down');
    const spent = bounds({ maxWrites: 0 }).bounds;
    spent.reserveWrite();
    spent.backOffIfThrottled(throttled);
    expect(spent.stopReason).toMatch(/write budget/);

    const first = bounds({ maxWrites: 0 }).bounds;
    first.backOffIfThrottled(throttled);
    first.reserveWrite();
    expect(first.stopReason).toMatch(/429/);
  });
});

const many = (n: number, ns = 'default') =>
  Array.from({ length: n }, (_, i) => cm(ns, `cm-${String(i).padStart(3, '0')}`));

describe('bounded pass', () => {
  it('paginates tenant and host listings with limit and continue', async () => {
    const { tenantApi, hostApi } = clusters(many(5), [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { pageSize: 2 } });
    expect(result.counts.Create).toBe(5);
    const lists = tenantApi.callsOf('list');
    expect(lists.map((c) => c.options?.limit)).toEqual([2, 2, 2]);
    expect(lists[0]?.options?.continueToken).toBeUndefined();
    expect(lists[1]?.options?.continueToken).toBeDefined();
    expect(result.objectsSeen).toEqual({ ConfigMap: 5 });
  });

  it('stops writing at the write budget, deletes first, and the next pass finishes the work', async () => {
    const { tenantApi, hostApi } = clusters(many(5), [hostCopyOf(cm('default', 'orphan'))], {
      toHost: [CONFIGMAP],
    });
    const first = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { maxWrites: 3, concurrency: 2 },
    });
    expect(first.complete).toBe(false);
    expect(first.incompleteReason).toBe(
      'the write budget of 3 writes was spent; the next pass continues',
    );
    // The listing went on to the end, so GC ran, and first: the orphan is gone before any create.
    expect(first.counts).toEqual({ Create: 2, Update: 0, Delete: 1, Skip: 0 });
    expect(first.requests.host.writes).toBe(3);
    expect(hostSummary(hostApi).map((o) => o.ref)).not.toContain(
      'ConfigMap orphan-x-default-x-dev',
    );

    const second = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 3 } });
    expect(second.complete).toBe(true);
    expect(second.counts).toEqual({ Create: 3, Update: 0, Delete: 0, Skip: 0 });
    expect(hostSummary(hostApi)).toHaveLength(5);
  });

  it('a budget exactly as large as the work completes the pass', async () => {
    const { tenantApi, hostApi } = clusters(many(3), [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 3 } });
    expect(result.complete).toBe(true);
  });

  it('stops at the deadline without starting new work', async () => {
    let now = 1_000;
    const clock = { now: () => now };
    const { tenantApi, hostApi } = clusters([...many(4), ...many(2, 'other')], [], {});
    // Every host create takes "a second" of the fake clock.
    hostApi.failWhen((call) => {
      if (call.method === 'create') now += 1_000;
      return undefined;
    });
    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      clock,
      budget: { deadline: 3_500, concurrency: 1 },
    });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/deadline .* was reached; the next pass continues/);
    expect(result.incompleteReason).toMatch(/not started: Secret/);
    expect(result.counts.Create).toBe(3);
    expect(result.durationMs).toBe(3_000);
  });

  it('backs off when the host answers 429: stops starting work, skips GC, next pass completes', async () => {
    const orphan = hostCopyOf(cm('default', 'orphan'));
    const { tenantApi, hostApi } = clusters(many(6), [orphan], { toHost: [CONFIGMAP] });
    let creates = 0;
    hostApi.failWhen((call) => {
      if (call.method !== 'create') return undefined;
      creates += 1;
      return creates === 2
        ? new ClusterError('TooManyRequests', 'too many requests', { retryAfterSeconds: 3 })
        : undefined;
    });
    const first = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { concurrency: 1 },
    });
    expect(first.complete).toBe(false);
    expect(first.incompleteReason).toMatch(
      /429 Too Many Requests, retry after 3 s\), so the pass stopped early; the next pass continues/,
    );
    // The throttled create is a Create decision that records its failure, counted apart.
    expect(first.counts).toMatchObject({ Create: 1, Delete: 0 });
    expect(first.failed).toMatchObject({ Create: 1 });
    expect(first.decisions.filter((d) => d.error !== undefined)).toHaveLength(1);
    expect(first.errors).toEqual([expect.objectContaining({ reason: 'TooManyRequests' })]);
    expect(creates).toBe(2); // no new work after the 429
    expect(hostApi.peek(CONFIGMAP, HOST_NS, orphan.metadata.name)).toBeDefined();

    hostApi.clearFailures();
    const second = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
    expect(second.complete).toBe(true);
    expect(second.counts).toMatchObject({ Create: 5, Delete: 1 });
  });

  it('never runs more writes at once than the concurrency allows', async () => {
    let inFlight = 0;
    let peak = 0;
    const { tenantApi, hostApi } = clusters(
      many(12),
      [],
      { toHost: [CONFIGMAP] },
      {
        host: {
          beforeCall: async (call) => {
            if (call.method !== 'create') return;
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 5));
            inFlight -= 1;
          },
        },
      },
    );
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { concurrency: 3 },
    });
    expect(result.counts.Create).toBe(12);
    expect(peak).toBe(3);
  });

  it('reports progress per page', async () => {
    const { tenantApi, hostApi } = clusters(many(3), [], { toHost: [CONFIGMAP] });
    const progress: unknown[] = [];
    await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { pageSize: 2 },
      onProgress: (p) => progress.push(p),
    });
    expect(progress).toEqual([
      { kind: 'ConfigMap', listed: 2, written: 2 },
      { kind: 'ConfigMap', listed: 3, written: 3 },
    ]);
  });
});

describe('failures', () => {
  it('throws TenantClusterNotFoundError when the TenantCluster is missing', async () => {
    const tenantApi = new MemoryCluster('tenant');
    const hostApi = new MemoryCluster('host');
    await expect(runPass({ tenant: TENANT, tenantApi, hostApi })).rejects.toThrow(
      TenantClusterNotFoundError,
    );
  });

  it('throws InvalidPolicyError for a bad spec', async () => {
    const { tenantApi, hostApi } = clusters([], [], { hostNamespace: 'NOT OK' });
    const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect(error).toBeInstanceOf(PassError);
    expect(writesBesideFailureReport(hostApi)).toBe(0);
  });

  it.each(['host', 'tenant'] as const)(
    'throws ClusterUnreachableError when the %s cluster cannot be reached',
    async (role) => {
      const { tenantApi, hostApi } = clusters([cm('default', 'a')], []);
      const transport = new ClusterError('Transport', 'connect ECONNREFUSED 127.0.0.1:6443');
      (role === 'host' ? hostApi : tenantApi).failWhen(() => transport);
      const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClusterUnreachableError);
      expect((error as ClusterUnreachableError).role).toBe(role);
      expect((error as Error).cause).toBe(transport);
      expect(writesBesideFailureReport(hostApi)).toBe(0);
    },
  );

  it('wraps other failures to read the TenantCluster in a PassError with cause', async () => {
    const { tenantApi, hostApi } = clusters([], []);
    const forbidden = new ClusterError('Forbidden', 'tenantclusters is forbidden');
    hostApi.failWhen((c) => (c.kind === 'TenantCluster' ? forbidden : undefined));
    const error = await runPass({ tenant: TENANT, tenantApi, hostApi }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassError);
    expect((error as Error).cause).toBe(forbidden);
  });

  it('a forbidden or missing kind is a per-kind error: other kinds sync, its GC is skipped', async () => {
    const orphanWidget: KubeObject = hostCopyOf({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { namespace: 'default', name: 'w', uid: 'u' },
    });
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'a'), secret('default', 's')],
      [orphanWidget, hostCopyOf(secret('default', 'old'))],
      { toHost: [{ apiVersion: 'example.com/v1', kind: 'Widget' }, SECRET, CONFIGMAP] },
      { tenant: { installedKinds: [CONFIGMAP, SECRET] } },
    );
    tenantApi.failWhen((c) =>
      c.kind === 'Secret' && c.method === 'list'
        ? new ClusterError('Forbidden', 'secrets is forbidden')
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/Widget: the tenant listing failed/);
    expect(result.incompleteReason).toMatch(/Secret: the tenant listing failed/);
    expect(result.errors.map((e) => [e.kind, e.reason])).toEqual([
      ['Widget', 'NotFound'],
      ['Secret', 'Forbidden'],
    ]);
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/a -> a-x-default-x-dev',
    ]);
    // Nothing garbage-collected from the incomplete kinds.
    expect(hostApi.objects().map((o) => o.metadata.name)).toEqual(
      expect.arrayContaining(['w-x-default-x-dev', 'old-x-default-x-dev']),
    );
  });

  it('a failed host listing skips that kind entirely', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'list' ? new ClusterError('TooManyRequests', 'slow down') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toMatch(/ConfigMap: the host listing failed/);
    expect(result.decisions).toEqual([]);
  });

  it('aggregates per-object errors: a rejected object never stops the rest', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'bad'), cm('default', 'good'), cm('default', 'stale', { k: 'new' })],
      [hostCopyOf(cm('default', 'stale'))],
      { toHost: [CONFIGMAP] },
    );
    hostApi.failWhen((c) =>
      c.method === 'create' && c.name === 'bad-x-default-x-dev'
        ? new ClusterError('Invalid', 'denied by ValidatingAdmissionPolicy "no-bad"')
        : undefined,
    );
    hostApi.failWhen((c) =>
      c.method === 'update'
        ? new ClusterError('Conflict', 'the object has been modified')
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.complete).toBe(true);
    expect(decisionLines(result.decisions)).toEqual([
      'Create ConfigMap default/bad -> bad-x-default-x-dev',
      'Create ConfigMap default/good -> good-x-default-x-dev',
      'Update ConfigMap default/stale -> stale-x-default-x-dev',
    ]);
    expect(result.errors).toEqual([
      {
        kind: 'ConfigMap',
        tenantRef: { namespace: 'default', name: 'bad' },
        hostRef: { namespace: HOST_NS, name: 'bad-x-default-x-dev' },
        message: 'denied by ValidatingAdmissionPolicy "no-bad"',
        reason: 'Invalid',
      },
      expect.objectContaining({ kind: 'ConfigMap', reason: 'Conflict' }),
    ]);
    expect(result.decisions.find((d) => d.tenantRef.name === 'bad')?.error).toMatch(/no-bad/);
    expect(hostSummary(hostApi).map((o) => o.ref)).toContain('ConfigMap good-x-default-x-dev');
  });

  it('deletes carry the uid precondition; a recreated object is not deleted (a Skip: checked again next pass)', async () => {
    const orphan = hostCopyOf(cm('default', 'gone'));
    const { tenantApi, hostApi } = clusters([], [orphan], { toHost: [CONFIGMAP] });
    const seeded = hostApi.peek(CONFIGMAP, HOST_NS, 'gone-x-default-x-dev');
    hostApi.failWhen((c) => {
      if (c.method === 'delete') {
        // Someone recreates the object just before the delete arrives.
        hostApi.replace({
          ...(seeded as KubeObject),
          metadata: { ...(seeded as KubeObject).metadata, uid: 'new-uid' },
        });
      }
      return undefined;
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    // 409 on the preconditions: not deleted, never retried blind; the next pass looks again.
    expect(result.decisions[0]?.action).toBe('Skip');
    expect(result.decisions[0]?.reason).toMatch(/changed after it was listed \(409 Conflict/);
    expect(result.errors).toEqual([]);
    expect(hostApi.peek(CONFIGMAP, HOST_NS, 'gone-x-default-x-dev')?.metadata.uid).toBe('new-uid');
  });

  it('survives hostile tenant objects', async () => {
    const hostile: KubeObject[] = [
      cm('default', 'x'.repeat(5000)),
      cm(
        'default',
        '-x--x--x-',
        { k: 'v' },
        { labels: { 'weird/key/with/slashes': '\u0000', '': '' } },
      ),
      cm('a-x-', '-x-'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'no-data' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-scoped' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: '' } },
    ];
    const { tenantApi, hostApi } = clusters(hostile, [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.counts.Create).toBe(4);
    expect(result.errors.map((e) => e.message)).toEqual([
      'a tenant object without a name was ignored',
      'ConfigMap objects without a namespace cannot be synced; only namespaced kinds can',
    ]);
    for (const object of hostApi.objects(CONFIGMAP))
      expect(object.metadata.name.length).toBeLessThanOrEqual(63);
  });
});

describe('dry run', () => {
  it('computes the same decisions as a real pass and writes nothing', async () => {
    const tenantState = [
      cm('default', 'new'),
      cm('default', 'changed', { k: 'new' }),
      cm('default', 'taken'),
    ];
    const hostState = [
      hostCopyOf(cm('default', 'changed')),
      hostCopyOf(cm('default', 'orphan')),
      { ...CONFIGMAP, metadata: { namespace: HOST_NS, name: 'taken-x-default-x-dev' }, data: {} },
    ];
    const dry = clusters(tenantState, hostState, { toHost: [CONFIGMAP] });
    const sink = new RecordingSink();
    const dryResult = await runPass({ tenant: TENANT, ...dry, dryRun: true, sinks: [sink] });
    const real = clusters(tenantState, hostState, { toHost: [CONFIGMAP] });
    const realResult = await runPass({ tenant: TENANT, ...real });

    expect(decisionLines(dryResult.decisions)).toEqual(decisionLines(realResult.decisions));
    expect(decisionLines(dryResult.decisions)).toEqual([
      'Create ConfigMap default/new -> new-x-default-x-dev',
      'Delete ConfigMap default/orphan -> orphan-x-default-x-dev',
      'Skip ConfigMap default/taken -> taken-x-default-x-dev',
      'Update ConfigMap default/changed -> changed-x-default-x-dev',
    ]);
    expect(dryResult.dryRun).toBe(true);
    expect(dryResult.decisions.every((d) => d.dryRun)).toBe(true);
    expect(sink.decisions.every((d) => d.dryRun)).toBe(true);
    expect(sink.results).toHaveLength(1);
    expect(dry.hostApi.requestCount().writes).toBe(0);
    expect(dry.hostApi.callsOf('patchStatus')).toEqual([]);
    expect(dry.hostApi.objects()).toEqual(
      clusters(tenantState, hostState, { toHost: [CONFIGMAP] }).hostApi.objects(),
    );
  });
});

describe('status, sinks and results', () => {
  it('writes status.lastPass in the shape of the CRD', async () => {
    let now = Date.parse('2025-03-01T10:00:00Z');
    const clock = { now: () => (now += 250) };
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'create' && c.name === 'a-x-default-x-dev'
        ? new ClusterError('Invalid', 'nope')
        : undefined,
    );
    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      clock,
      passId: 'pass-1',
    });
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status;
    // The clock is read once more than the start and the end: the failure's back-off time.
    expect(status).toMatchObject({
      lastPass: {
        passId: 'pass-1',
        startedAt: '2025-03-01T10:00:00.250Z',
        finishedAt: '2025-03-01T10:00:00.750Z',
        durationMs: 500,
        complete: true,
        // The failed create is counted apart from the creates made.
        counts: { create: 0, update: 0, delete: 0, skip: 0, alreadyGone: 0 },
        failed: { create: 1, update: 0, delete: 0 },
        failedCount: 1,
        errorCount: 1,
        errors: ['ConfigMap default/a: nope (Invalid)'],
      },
    });
    expect(result.passId).toBe('pass-1');
  });

  it('clears an old incompleteReason and caps the error list at 20', async () => {
    const { tenantApi, hostApi } = clusters(many(25), [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'create' ? new ClusterError('Invalid', 'rejected') : undefined,
    );
    await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 1 } });
    expect(hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status).toMatchObject({
      lastPass: { complete: false, incompleteReason: expect.stringMatching(/write budget/) },
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as
      | { lastPass: Record<string, unknown> }
      | undefined;
    const lastPass = status?.lastPass ?? {};
    expect(lastPass).not.toHaveProperty('incompleteReason');
    expect(lastPass.errorCount).toBe(25);
    expect(lastPass.errors).toHaveLength(20);
    expect(result.errors).toHaveLength(25);
  });

  it('a status write failure is reported, not thrown', async () => {
    const { tenantApi, hostApi } = clusters([], []);
    hostApi.failWhen((c) =>
      c.method === 'patchStatus' ? new ClusterError('Forbidden', 'no status') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.errors).toEqual([
      {
        kind: 'TenantCluster',
        message: 'could not write status.lastPass: no status',
        reason: 'Forbidden',
      },
    ]);
  });

  it('delivers decisions as they are made, then passFinished once; a throwing sink changes nothing', async () => {
    const order: string[] = [];
    const sink: DecisionSink = {
      decision: (d) => order.push(`decision ${d.tenantRef.name}`),
      passFinished: async () => {
        order.push('finished');
      },
    };
    const broken: DecisionSink = {
      decision: () => {
        throw new Error('sink down');
      },
      passFinished: async () => {
        throw new Error('sink down');
      },
    };
    const { tenantApi, hostApi } = clusters([cm('default', 'a'), cm('default', 'b')], [], {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      sinks: [broken, sink],
      budget: { concurrency: 1 },
    });
    expect(order).toEqual(['decision a', 'decision b', 'finished']);
    expect(result.counts.Create).toBe(2);
    expect(result.errors).toEqual([]);
  });

  it('counts requests per cluster', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    // host: get TenantCluster + list ConfigMaps + create; tenant: the identity GET (namespace
    // kube-system) + one list.
    expect(result.requests).toEqual({
      tenant: { reads: 2, writes: 0 },
      host: { reads: 2, writes: 1 },
    });
  });

  it('never puts Secret data into decisions or errors', async () => {
    const { tenantApi, hostApi } = clusters(
      [secret('default', 'db'), secret('default', 'other')],
      [hostCopyOf({ ...secret('default', 'other'), data: { password: 'b2xk' } })],
      { toHost: [SECRET] },
    );
    hostApi.failWhen((c) =>
      c.method === 'create' ? new ClusterError('Invalid', 'rejected') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    const text = JSON.stringify({ decisions: result.decisions, errors: result.errors });
    expect(result.decisions).toHaveLength(2);
    expect(text).not.toContain('c3VwZXItc2VjcmV0');
    expect(text).not.toContain('b2xk');
    expect(text).not.toContain('password');
  });

  it('a paused policy makes no decisions, writes nothing and says so', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { paused: true });
    const sink = new RecordingSink();
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, sinks: [sink] });
    expect(result.complete).toBe(true);
    expect(result.decisions).toEqual([]);
    expect(result.note).toMatch(/paused/);
    expect(hostApi.requestCount().writes).toBe(0);
    expect(tenantApi.requestCount().reads).toBe(0);
    expect(sink.results).toEqual([result]);
  });
});

describe('fewer writes than kinds', () => {
  const clock = { now: () => 0 };

  /** The writes each of `count` kinds may start in one pass whose turns start at `offset`. */
  function writesPerKind(maxWrites: number, count: number, offset: number): number[] {
    const bounds = new PassBounds(effectiveBudget({ maxWrites }), clock);
    bounds.rotateTurns(offset);
    const got: number[] = [];
    for (let i = 0; i < count; i++) {
      bounds.beginKind(i, count);
      let n = 0;
      while (bounds.reserveWrite()) n++;
      bounds.endKind();
      got.push(n);
    }
    return got;
  }

  it.each([
    { name: 'B=1, K=3, turn 0', maxWrites: 1, count: 3, offset: 0, expected: [1, 0, 0] },
    { name: 'B=1, K=3, turn 1', maxWrites: 1, count: 3, offset: 1, expected: [0, 1, 0] },
    { name: 'B=1, K=3, turn 2', maxWrites: 1, count: 3, offset: 5, expected: [0, 0, 1] },
    { name: 'B=2, K=3, window wraps', maxWrites: 2, count: 3, offset: 2, expected: [1, 0, 1] },
  ])('$name: $expected', ({ maxWrites, count, offset, expected }) => {
    expect(writesPerKind(maxWrites, count, offset)).toEqual(expected);
  });

  it('over K consecutive turns every kind gets a write, never more than the budget in one pass', () => {
    const seen = new Set<number>();
    for (let offset = 0; offset < 4; offset++) {
      const got = writesPerKind(1, 4, offset);
      expect(got.reduce((a, b) => a + b, 0)).toBe(1);
      seen.add(got.indexOf(1));
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it('a kind that needs nothing leaves its write to the kinds after it', () => {
    const bounds = new PassBounds(effectiveBudget({ maxWrites: 1 }), clock);
    bounds.rotateTurns(0);
    bounds.beginKind(0, 2);
    bounds.endKind();
    bounds.beginKind(1, 2);
    expect(bounds.reserveWrite()).toBe(true);
  });
});
