/**
 * Retry with back-off: the memory's rules (when an attempt is due, how the delay grows, what is
 * forgotten, when the status needs writing), and passes against a host that keeps refusing some
 * objects: they cost a write once per back-off period, not every pass, and a change of the tenant
 * object retries at once.
 */
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_BACKOFF,
  MAX_RETRIES_REMEMBERED,
  persistentFailure,
  type RetryKey,
  RetryMemory,
} from '../../../../lib/engine/bounds/retry-backoff.js';
import { runPass } from '../../../../lib/engine/index.js';
import { ClusterError, type KubeObject, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, TENANT } from '../support.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const MIN = 60_000;
const key = (name = 'a', op: RetryKey['op'] = 'apply'): RetryKey => ({
  kind: CONFIGMAP,
  op,
  object: { namespace: 'default', name },
});
const denied = new ClusterError('Invalid', 'denied by policy');

function memoryAt(now: { t: number }, status: unknown = {}) {
  return new RetryMemory(status, () => now.t);
}

describe('RetryMemory', () => {
  it('an object never failed is due', () => {
    expect(memoryAt({ t: T0 }).check(key(), 'v1')).toEqual({ due: true });
  });

  const delays: Array<{ failures: number; expectedMinutes: number }> = [
    { failures: 1, expectedMinutes: 10 },
    { failures: 2, expectedMinutes: 20 },
    { failures: 3, expectedMinutes: 40 },
    { failures: 4, expectedMinutes: 60 },
    { failures: 9, expectedMinutes: 60 },
  ];
  it.each(delays)(
    'after $failures failure(s) for the same reason, waits $expectedMinutes min',
    ({ failures, expectedMinutes }) => {
      let status: unknown = {};
      for (let i = 0; i < failures; i++) {
        const memory = memoryAt({ t: T0 }, status);
        memory.failed(key(), 'v1', denied);
        status = memory.statusPatch() ?? status;
      }
      const memory = memoryAt({ t: T0 + expectedMinutes * MIN - 1 }, status);
      expect(memory.check(key(), 'v1')).toMatchObject({ due: false, entry: { failures } });
      expect(memoryAt({ t: T0 + expectedMinutes * MIN }, status).check(key(), 'v1')).toEqual({
        due: true,
      });
    },
  );

  it('has() says whether anything is remembered, without a version', () => {
    const memory = memoryAt({ t: T0 });
    expect(memory.has(key())).toBe(false);
    memory.failed(key(), 'v1', denied);
    expect(memory.has(key())).toBe(true);
    expect(memory.has(key('b'))).toBe(false);
  });

  it('a changed source (another version) is due at once', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key(), 'v1', denied);
    expect(memory.check(key(), 'v1').due).toBe(false);
    expect(memory.check(key(), 'v2')).toEqual({ due: true });
  });

  it('another reason starts the delay afresh', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key(), 'v1', denied);
    memory.failed(key(), 'v1', denied);
    memory.failed(key(), 'v1', new ClusterError('Forbidden', 'quota'));
    expect(memory.check(key(), 'v1')).toMatchObject({
      due: false,
      entry: { failures: 1, reason: 'Forbidden' },
    });
  });

  const failures: Array<{ name: string; error: unknown; persistent: boolean }> = [
    {
      name: 'Invalid (422)',
      error: new ClusterError('Invalid', 'x', { status: 422 }),
      persistent: true,
    },
    { name: 'Invalid without a status', error: new ClusterError('Invalid', 'x'), persistent: true },
    {
      name: 'Forbidden (quota)',
      error: new ClusterError('Forbidden', 'x', { status: 403 }),
      persistent: true,
    },
    {
      name: 'another 4xx (413, too large)',
      error: new ClusterError('Unknown', 'x', { status: 413 }),
      persistent: true,
    },
    {
      name: 'Conflict',
      error: new ClusterError('Conflict', 'x', { status: 409 }),
      persistent: false,
    },
    {
      name: 'NotFound',
      error: new ClusterError('NotFound', 'x', { status: 404 }),
      persistent: false,
    },
    {
      name: 'AlreadyExists',
      error: new ClusterError('AlreadyExists', 'x', { status: 409 }),
      persistent: false,
    },
    {
      name: '429',
      error: new ClusterError('TooManyRequests', 'x', { status: 429 }),
      persistent: false,
    },
    { name: 'a 503', error: new ClusterError('Unknown', 'x', { status: 503 }), persistent: false },
    {
      name: 'a 500 webhook failure',
      error: new ClusterError('Invalid', 'x', { status: 500 }),
      persistent: false,
    },
    { name: 'no answer', error: new ClusterError('Transport', 'x'), persistent: false },
    { name: 'an error of the engine', error: new Error('x'), persistent: false },
  ];
  it.each(failures)('$name: backed off = $persistent', ({ error, persistent }) => {
    expect(persistentFailure(error)).toBe(persistent);
    const memory = memoryAt({ t: T0 });
    memory.failed(key(), 'v1', error);
    expect(memory.check(key(), 'v1').due).toBe(!persistent);
    expect(memory.statusPatch() === undefined).toBe(!persistent);
  });

  it('a refused update asks for a replacement at the next pass, without delay', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key(), 'v1', denied, ['data']);
    expect(memory.check(key(), 'v1')).toEqual({ due: true, replace: ['data'] });
  });

  it('a success forgets the object', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key(), 'v1', denied);
    memory.succeeded(key());
    expect(memory.check(key(), 'v1')).toEqual({ due: true });
    expect(memory.size).toBe(0);
  });

  it('apply and delete entries of one object are apart', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key('a', 'delete'), '7', denied);
    expect(memory.check(key('a', 'apply'), '7')).toEqual({ due: true });
    expect(memory.check(key('a', 'delete'), '7').due).toBe(false);
  });

  it('retain and retainKinds forget what is gone', () => {
    const memory = memoryAt({ t: T0 });
    memory.failed(key('a'), 'v1', denied);
    memory.failed(key('b'), 'v1', denied);
    memory.failed({ ...key('c'), kind: { apiVersion: 'v1', kind: 'Secret' } }, 'v1', denied);
    memory.retain(CONFIGMAP, (e) => e.object === 'default/a');
    expect(memory.list().map((e) => `${e.kind} ${e.object}`)).toEqual([
      'ConfigMap default/a',
      'Secret default/c',
    ]);
    memory.retainKinds([CONFIGMAP]);
    expect(memory.size).toBe(1);
  });

  it('the status is written only when the memory changed', () => {
    const memory = memoryAt({ t: T0 });
    expect(memory.statusPatch()).toBeUndefined();
    memory.failed(key(), 'v1', denied);
    const patch = memory.statusPatch();
    expect(patch).toEqual({
      retries: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          op: 'apply',
          object: 'default/a',
          version: 'v1',
          reason: 'Invalid',
          failures: 1,
          retryAfter: new Date(T0 + DEFAULT_BACKOFF.baseMs).toISOString(),
        },
      ],
    });
    const next = memoryAt({ t: T0 + MIN }, patch);
    expect(next.check(key(), 'v1').due).toBe(false);
    expect(next.statusPatch()).toBeUndefined();
    next.succeeded(key());
    expect(next.statusPatch()).toEqual({ retries: [] });
  });

  it(`remembers at most ${MAX_RETRIES_REMEMBERED} objects, keeping the latest retries`, () => {
    const memory = memoryAt({ t: T0 });
    for (let i = 0; i < MAX_RETRIES_REMEMBERED + 5; i++) memory.failed(key(`o${i}`), 'v', denied);
    expect(memory.list()).toHaveLength(MAX_RETRIES_REMEMBERED);
  });

  // Past the detailed 200, the forgotten ones were retried every pass (issue 20, finding 2):
  // N failures cost N - 200 writes per pass. Folded, every one of them keeps backing off.
  const overflowCases = [
    { name: `${MAX_RETRIES_REMEMBERED + 50} failing`, failing: MAX_RETRIES_REMEMBERED + 50 },
    { name: '1,000 failing', failing: 1_000 },
  ];
  it.each(overflowCases)('$name: a full memory keeps every one backing off', ({ failing }) => {
    const now = { t: T0 };
    const memory = memoryAt(now);
    for (let i = 0; i < failing; i++) memory.failed(key(`o${i}`), 'v', denied);
    const recorded = memory.statusPatch();
    expect(recorded?.retries).toHaveLength(MAX_RETRIES_REMEMBERED);
    expect(recorded?.retryOverflow?.[0]?.objects).toHaveLength(failing - MAX_RETRIES_REMEMBERED);
    now.t += 5 * MIN;
    const next = memoryAt(now, recorded);
    const due = Array.from({ length: failing }, (_, i) => next.check(key(`o${i}`), 'v').due);
    expect(due.filter(Boolean)).toHaveLength(0);
    // Nothing changed: no status write.
    expect(next.statusPatch()).toBeUndefined();
    // A changed version is due at once, folded or not.
    expect(next.check(key(`o${failing - 1}`), 'v2').due).toBe(true);
    expect(next.failedBefore(key(`o${failing - 1}`), 'v')).toBe(true);
    // Once the group's time has come its objects are due, and the group is dropped.
    now.t += DEFAULT_BACKOFF.maxMs;
    const later = memoryAt(now, recorded);
    expect(later.check(key(`o${failing - 1}`), 'v').due).toBe(true);
  });

  it('ignores garbage in the recorded status', () => {
    const memory = memoryAt({ t: T0 }, { retries: [{ kind: 'x' }, 'nope', null] });
    expect(memory.size).toBe(0);
  });
});

describe('passes against a host that keeps refusing objects', () => {
  const bad = (name: string, data: Record<string, string> = { k: 'v' }): KubeObject =>
    cm('default', name, data);

  function setup(tenant: KubeObject[]) {
    const c = clusters(tenant, [], { toHost: [CONFIGMAP] });
    c.hostApi.failWhen((call) =>
      call.method === 'create' && call.name?.startsWith('bad') ? denied : undefined,
    );
    return c;
  }

  it('a refused object costs one write per back-off period, and its change retries it at once', async () => {
    const now = { t: T0 };
    const clock = { now: () => now.t };
    const { tenantApi, hostApi } = setup([bad('bad-1'), bad('good')]);
    const first = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(first.failed?.Create).toBe(1);
    expect(hostApi.callsOf('create')).toHaveLength(2);

    now.t += 5 * MIN;
    const second = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(second.decisions).toEqual([]);
    expect(second.requests.host.writes).toBe(0);
    expect(second.errors).toEqual([
      expect.objectContaining({
        reason: 'Invalid',
        message: expect.stringMatching(
          /^not retried before 2030-01-01T00:10:00.000Z: it failed once/,
        ),
      }),
    ]);
    // Backing off changes no memory; once its words are recorded, it writes no status either.
    now.t += 2 * MIN;
    const quiet = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(quiet.errors).toEqual(second.errors);
    expect(quiet.statusWritten).toBe(false);
    expect(quiet.requests.host.writes).toBe(0);

    now.t += 3 * MIN;
    const third = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(third.failed?.Create).toBe(1);

    // The tenant edits the object: retried at once.
    now.t += MIN;
    const source = tenantApi.peek(CONFIGMAP, 'default', 'bad-1') as KubeObject;
    tenantApi.replace({ ...source, data: { k: 'fixed?' } });
    const fourth = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(fourth.failed?.Create).toBe(1);
    expect(hostApi.callsOf('create')).toHaveLength(4);
  });

  it('a refused delete backs off too', async () => {
    const now = { t: T0 };
    const clock = { now: () => now.t };
    const { tenantApi, hostApi } = clusters([], [], { toHost: [CONFIGMAP] });
    await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    tenantApi.seed(cm('default', 'gone'));
    await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    tenantApi.remove(CONFIGMAP, 'default', 'gone');
    hostApi.failWhen((call) =>
      call.method === 'delete' ? new ClusterError('Forbidden', 'a policy keeps it') : undefined,
    );
    const first = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(first.failed?.Delete).toBe(1);
    now.t += MIN;
    const second = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(second.requests.host.writes).toBe(0);
    expect(second.errors[0]?.message).toMatch(/^not retried before/);
    hostApi.clearFailures();
    now.t += DEFAULT_BACKOFF.baseMs;
    const third = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi, clock });
    expect(third.counts.Delete).toBe(1);
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as {
      retries: unknown[];
    };
    expect(status.retries).toEqual([]);
  });
});
