/**
 * The shipped sync function of a woken tenant (`wake: {}` in config/tenants.yaml, docs/wake.md),
 * run from its bundle in a fresh Node 24 process against the real tenant and host apiservers
 * (kubeconfigs from a local Secrets Manager endpoint), as follow.test.ts runs a followed one:
 * invoked with the wake endpoint's event while the tenant is converged, its pass writes nothing,
 * and it follows all the same: a change made just after the pass reaches the host in seconds,
 * then the invocation ends quiet; it counts one wake. The same tenant's schedule input, with
 * nothing changed, ends after its pass as before.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Invocation } from '../support/bundled-handler.js';
import { followOf, until, useShippedTenant } from './support.js';

const shipped = useShippedTenant({
  base: 'fnwake',
  quietSeconds: 5,
  timeoutSeconds: 60,
  wake: true,
});
const TENANT = shipped.tenant;
const { invoke, hostCopy, followActive } = shipped;

const wakes = (run: Invocation) =>
  `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((l) => l.trim().startsWith('{') && l.includes('"_aws"'))
    .map((l) => (JSON.parse(l) as { Wakes?: number }).Wakes);

beforeAll(async () => {
  // Converge the seed first (a tick that writes, follows, ends quiet): the tenant is idle after.
  const first = await invoke(shipped.fn.scheduleInput);
  if (first.error) throw new Error(`the first tick failed: ${first.error.message}`);
}, 120_000);

describe('the shipped function of a woken tenant', () => {
  it('woken while converged: follows anyway, a change right after its pass converges in seconds', async () => {
    const running = invoke({ tenant: TENANT, wake: true });
    await until('the woken follow', 20_000, followActive);
    await shipped.tenantApi.create(
      shipped.configMap('after-the-wake', { step: 'written while the woken function follows' }),
    );
    const latencyMs = await until('the host copy', 15_000, hostCopy('after-the-wake'));
    const run = await running;

    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    // The woken pass found nothing to do, and followed: the follow converged the change.
    expect(run.result).toMatchObject({ tenant: TENANT, complete: true, counts: { Create: 0 } });
    expect(latencyMs).toBeLessThan(5_000);
    expect(followOf(run)).toMatchObject({ followed: true, endReason: 'quiet', failures: 0 });
    const follow = followOf(run);
    if (!follow?.followed) throw new Error('not followed');
    expect(follow.changes).toBeGreaterThanOrEqual(1);
    expect(wakes(run)[0]).toBe(1);
  });

  it('the same tenant on its schedule, nothing changed: ends after its pass', async () => {
    const run = await invoke(shipped.fn.scheduleInput);
    expect(run.error).toBeUndefined();
    expect(followOf(run)).toEqual({
      followed: false,
      reason: 'the pass wrote nothing: the tenant is idle',
    });
    expect(wakes(run)[0]).toBe(0);
  });
});
