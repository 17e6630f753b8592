/**
 * The shipped sync function of a followed tenant (`follow.quietSeconds` in config/tenants.yaml),
 * run from its bundle in a fresh Node 24 process against the real tenant and host apiservers
 * (kubeconfigs from a local Secrets Manager endpoint), as bundle.test.ts runs it:
 * - a tick whose pass converged something goes on following: a tenant ConfigMap created while
 *   the invocation runs reaches the host in seconds, with no other invocation, and the
 *   invocation then ends by itself once the tenant is quiet, exit OK, with its follow reported
 *   (result, log line, EMF metrics, `status.follow`);
 * - the next tick, with nothing changed, ends right after its pass: it follows nothing;
 * - a tenant that stays active is followed until the invocation's deadline, which ends it
 *   cleanly, well before the function's timeout.
 */
import { describe, expect, it } from '@jest/globals';
import { SyncMetric } from '../../../functions/sync/contract.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import type { Invocation } from '../support/bundled-handler.js';
import { followOf, until, useShippedTenant } from './support.js';

const QUIET_SECONDS = 6;
const TIMEOUT_SECONDS = 60;
const shipped = useShippedTenant({
  base: 'fnfollow',
  quietSeconds: QUIET_SECONDS,
  timeoutSeconds: TIMEOUT_SECONDS,
});
const TENANT = shipped.tenant;

/** The tick: the function invoked with its schedule's input. */
const invoke = (extraEnv: Record<string, string> = {}) =>
  shipped.invoke(shipped.fn.scheduleInput, extraEnv);

/** The host copy of tenant ConfigMap `name`, once it is there: how long it took (ms). */
const hostCopy = (name: string, timeoutMs: number) =>
  until(`the host copy of ${name}`, timeoutMs, shipped.hostCopy(name));

/** Waits until `status.follow` says a follow of the tenant is running. */
const followActive = (timeoutMs: number) =>
  until('a follow recorded on the TenantCluster', timeoutMs, shipped.followActive);

function jsonLines(out: string): Array<Record<string, unknown>> {
  return out
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Every value a metric took in the invocation's EMF lines. */
function metricValues(run: Invocation, metric: string): number[] {
  return jsonLines(run.stdout + run.stderr)
    .filter((l) => '_aws' in l && metric in l)
    .flatMap((l) => l[metric] as number | number[]);
}

describe('the shipped function of a followed tenant', () => {
  it('is configured to follow: quiet seconds in its environment, its own timeout', () => {
    expect(shipped.fn.environment).toMatchObject({ FOLLOW_QUIET_SECONDS: String(QUIET_SECONDS) });
    expect(shipped.fn.timeoutSeconds).toBe(TIMEOUT_SECONDS);
  });

  it('follows an active tenant: a change during the invocation converges in seconds, then it ends quiet', async () => {
    const started = Date.now();
    const running = invoke();
    // The tick's pass copies the seeded ConfigMap: the tenant is active, the invocation follows.
    await hostCopy('app-config', 30_000);
    // Once the follow records itself (its watches are open), a tenant change wakes it.
    await followActive(15_000);
    await shipped.tenantApi.create(shipped.configMap('late-config', { step: 'during the follow' }));
    const latencyMs = await hostCopy('late-config', 15_000);
    const run = await running;
    const elapsedS = (Date.now() - started) / 1000;

    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    // Converged by the follow, not by a later tick (the next one is a minute away).
    expect(latencyMs).toBeLessThan(5_000);
    expect(run.result).toMatchObject({ tenant: TENANT, complete: true, counts: { Create: 1 } });
    const follow = followOf(run);
    expect(follow).toMatchObject({ followed: true, endReason: 'quiet', failures: 0 });
    if (!follow?.followed) throw new Error('not followed');
    expect(follow.changes).toBeGreaterThanOrEqual(1);
    expect(follow.passes).toBeGreaterThanOrEqual(2); // its first pass, and the change's
    expect(follow.latency?.p99Ms).toBeLessThan(5_000);
    // Ended by the quiet, well before the deadline (timeout less the 10 s safety margin).
    expect(follow.seconds).toBeGreaterThanOrEqual(QUIET_SECONDS);
    expect(elapsedS).toBeLessThan(TIMEOUT_SECONDS - 10);

    expect(metricValues(run, SyncMetric.FollowedSeconds)).toEqual([follow.seconds]);
    expect(metricValues(run, SyncMetric.FollowChanges)).toEqual([follow.changes]);
    expect(metricValues(run, SyncMetric.ChangeLatencyP99)).toEqual([follow.latency?.p99Ms]);
    // The follow's passes publish the pass metrics too: the late ConfigMap's Create among them.
    expect(metricValues(run, SyncMetric.Creates).reduce((a, b) => a + b, 0)).toBe(2);
    const ended = jsonLines(run.stdout + run.stderr).find((l) => l.message === 'follow ended');
    expect(ended).toMatchObject({ endReason: 'quiet', tenant: TENANT });

    const tc = await shipped.hostApi.get(TENANT_CLUSTER, undefined, TENANT);
    expect((tc?.status as { follow?: unknown } | undefined)?.follow).toMatchObject({
      active: false,
      endReason: 'quiet',
      changes: follow.changes,
    });
  });

  it('ends right after its pass when nothing changed: an idle tick follows nothing', async () => {
    const started = Date.now();
    const run = await invoke();

    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    expect(run.result).toMatchObject({ complete: true, counts: { Create: 0, Update: 0 } });
    expect(followOf(run)).toEqual({
      followed: false,
      reason: 'the pass wrote nothing: the tenant is idle',
    });
    expect(Date.now() - started).toBeLessThan(QUIET_SECONDS * 1000);
    expect(metricValues(run, SyncMetric.FollowedSeconds)).toEqual([0]);
  });

  it('follows a tenant that stays active until its deadline, and ends cleanly', async () => {
    await shipped.tenantApi.create(shipped.configMap('burst-0', { n: '0' }));
    // A deadline 12 s after the start (the timeout less this safety margin), shorter than the
    // activity: a change every second keeps the follow from ever being quiet.
    let writing = true;
    const writer = (async () => {
      for (let n = 1; writing; n += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        if (writing)
          await shipped.tenantApi.create(shipped.configMap(`burst-${n}`, { n: String(n) }));
      }
    })();
    const started = Date.now();
    const run = await invoke({ SAFETY_MARGIN_MS: String((TIMEOUT_SECONDS - 12) * 1000) });
    writing = false;
    await writer;

    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    expect(followOf(run)).toMatchObject({ followed: true, endReason: 'deadline', failures: 0 });
    expect(Date.now() - started).toBeLessThan(20_000);
    const follow = followOf(run);
    if (!follow?.followed) throw new Error('not followed');
    expect(follow.changes).toBeGreaterThanOrEqual(3);
  });
});
