/**
 * The pass as a whole under its bounds (`budget` of `runPass`): pagination, the write budget, the
 * deadline, backing off on 429, the concurrency limit and progress per page.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { ClusterError } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hostCopyOf, hostSummary, TENANT } from '../support.js';
import { many } from './support.js';

/** A clock whose waits move its own time, and remember how long each was. */
class WaitingClock {
  readonly waits: number[] = [];
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
    this.at += ms;
  }
}

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

  it('a 429 whose Retry-After fits the deadline: waits as told, sends again, the Decision says so', async () => {
    const clock = new WaitingClock(1_000);
    const { waits } = clock;
    const { tenantApi, hostApi } = clusters(many(4), [], { toHost: [CONFIGMAP] });
    let creates = 0;
    const sentAt: number[] = [];
    hostApi.failWhen((call) => {
      if (call.method !== 'create') return undefined;
      creates += 1;
      sentAt.push(clock.now());
      return creates === 2 || creates === 3
        ? new ClusterError('TooManyRequests', 'too many requests', { retryAfterSeconds: 3 })
        : undefined;
    });
    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      clock,
      budget: { concurrency: 1, deadline: 60_000 },
    });
    expect(result.complete).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.counts.Create).toBe(4);
    // Asked twice for 3 s: sent again 3 s after each answer, and nothing else went meanwhile.
    expect(waits).toEqual([3_000, 3_000]);
    expect(sentAt).toEqual([1_000, 1_000, 4_000, 7_000, 7_000, 7_000]);
    expect(result.throttled).toEqual({ retried: 2, waitedMs: 6_000 });
    const waited = result.decisions.filter((d) => d.reason.includes('429'));
    expect(waited).toHaveLength(1);
    expect(waited[0]?.reason).toMatch(
      /; the host apiserver asked to retry after 3 s, then 3 s \(429 Too Many Requests\); sent again after waiting as asked$/,
    );
  });

  it.each([
    {
      name: 'longer than the deadline leaves',
      error: new ClusterError('TooManyRequests', 'too many requests', { retryAfterSeconds: 30 }),
      reason:
        'the host apiserver asked to retry after 30 s (429 Too Many Requests), longer than the 9 s left before the pass deadline, so the pass stopped early; the next pass continues',
      notBefore: new Date(31_000).toISOString(),
    },
    {
      name: 'without a Retry-After',
      error: new ClusterError('TooManyRequests', 'too many requests'),
      reason:
        'the host apiserver answered 429 Too Many Requests without a Retry-After, so the pass stopped early; the next pass continues',
      notBefore: undefined,
    },
  ])(
    'a 429 $name: the pass stops starting work, skips GC, the next pass completes',
    async ({ error, reason, notBefore }) => {
      const clock = new WaitingClock(1_000);
      const orphan = hostCopyOf(cm('default', 'orphan'));
      const { tenantApi, hostApi } = clusters(many(6), [orphan], { toHost: [CONFIGMAP] });
      let creates = 0;
      hostApi.failWhen((call) => {
        if (call.method !== 'create') return undefined;
        creates += 1;
        return creates === 2 ? error : undefined;
      });
      const first = await runPass({
        lease: false,
        tenant: TENANT,
        tenantApi,
        hostApi,
        clock,
        budget: { concurrency: 1, deadline: 10_000 },
      });
      expect(first.complete).toBe(false);
      expect(first.incompleteReason).toBe(
        `${reason}; ConfigMap: stopped before it finished, so its garbage collection was skipped`,
      );
      expect(clock.waits).toEqual([]);
      expect(first.throttled).toEqual(
        notBefore === undefined ? undefined : { retried: 0, waitedMs: 0, notBefore },
      );
      // The throttled create is a Create decision that records its failure, counted apart.
      expect(first.counts).toMatchObject({ Create: 1, Delete: 0 });
      expect(first.failed).toMatchObject({ Create: 1 });
      const failed = first.decisions.filter((d) => d.error !== undefined);
      expect(failed.map((d) => d.error)).toEqual([
        reason.replace(/, so the pass .*/, ': not sent again this pass'),
      ]);
      expect(first.errors).toEqual([expect.objectContaining({ reason: 'TooManyRequests' })]);
      expect(creates).toBe(2); // no new work after the 429
      expect(hostApi.peek(CONFIGMAP, HOST_NS, orphan.metadata.name)).toBeDefined();

      hostApi.clearFailures();
      const second = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
      expect(second.complete).toBe(true);
      expect(second.counts).toMatchObject({ Create: 5, Delete: 1 });
    },
  );

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
