/**
 * A woken invocation of the sync function (`{"wake": true}`, docs/wake.md): it follows whatever
 * its pass found, with the tenant's quiet or the wake default, waits a little for a lease a pass
 * holds (not for one a follow holds), and counts itself in the `Wakes` metric. The first pass is
 * the real engine over in-memory clusters; `runFollow` is injected, as in sync-follow.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import {
  decideFollow,
  type FollowContext,
  firstPassPath,
  followAfterPass,
  followQuietSeconds,
  heldWait,
  isFollowHolder,
} from '../../../functions/sync/follow.js';
import { FollowEnd, type FollowOptions, type FollowResult } from '../../../lib/engine/index.js';
import type { PassResult } from '../../../lib/ports/index.js';
import { DEFAULT_WAKE_QUIET_SECONDS } from '../../../lib/wake/index.js';
import { clusters, TENANT } from '../engine/support.js';
import {
  captureOutput,
  followingHandler,
  lambdaContext,
  NOW,
  passResult,
  SYNC_ENV,
} from './support.js';

const HELD = {
  lease: 'ns/l',
  holder: 'tenantplane pass p-2 (host, pid 1)',
  since: 's',
  expires: 'e',
};

describe('followQuietSeconds', () => {
  it.each([
    [30, false, 30],
    [30, true, 30],
    [undefined, true, DEFAULT_WAKE_QUIET_SECONDS],
    [undefined, false, undefined],
  ])('configured %p, woken %p: %p', (configured, woken, expected) => {
    expect(followQuietSeconds(configured, woken)).toBe(expected);
  });
});

describe('firstPassPath', () => {
  it.each([
    [false, false, 'auto'],
    [true, false, 'full'],
    [false, true, 'full'],
    [true, true, 'full'],
  ] as const)('full %p, wake %p: %p', (full, wake, expected) => {
    expect(firstPassPath({ full, wake })).toBe(expected);
  });
});

describe('decideFollow for a woken invocation', () => {
  const base: FollowContext = {
    quietSeconds: 30,
    woken: true,
    dryRun: false,
    pass: passResult(0),
    untilMs: NOW + 60_000,
    now: NOW,
  };
  it.each<{ name: string; ctx: Partial<FollowContext>; expected: ReturnType<typeof decideFollow> }>(
    [
      {
        name: 'a pass that wrote nothing still follows: the change may come after it',
        ctx: {},
        expected: { follow: true, whenHeld: 'exit' },
      },
      {
        name: 'the lease held: follows, waiting for it',
        ctx: { pass: passResult(0, { leaseHeld: HELD }) },
        expected: { follow: true, whenHeld: 'wait' },
      },
      {
        name: 'not woken, the lease held: the tick is dropped as before',
        ctx: { woken: false, pass: passResult(0, { leaseHeld: HELD }) },
        expected: { follow: false, reason: `the lease is held by ${HELD.holder}` },
      },
      {
        name: 'a dry run follows nothing, woken or not',
        ctx: { dryRun: true },
        expected: { follow: false, reason: 'a dry run writes nothing to follow' },
      },
      {
        name: 'too little time left',
        ctx: { untilMs: NOW + 1_000 },
        expected: { follow: false, reason: 'too little time left before the deadline' },
      },
    ],
  )('$name', ({ ctx, expected }) => {
    expect(decideFollow({ ...base, ...ctx })).toEqual(expected);
  });
});

describe('heldWait', () => {
  it('a follow holder is told apart from a pass holder', () => {
    expect(isFollowHolder('tenantplane pass follow-0b1c (host, pid 7)')).toBe(true);
    expect(isFollowHolder(HELD.holder)).toBe(false);
  });

  it('exit: the follow options as before, no signal', () => {
    expect(heldWait('exit').options).toEqual({ whenHeld: 'exit' });
  });

  it('wait: gives up after the wait unless a pass ran', async () => {
    const gaveUp = heldWait('wait', 10);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(gaveUp.options.signal?.aborted).toBe(true);
    const ran = heldWait('wait', 10);
    ran.passed();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ran.options.signal?.aborted).toBe(false);
  });
});

const FOLLOWED: FollowResult = {
  tenant: TENANT,
  holder: 'follow-1',
  startedAt: new Date(NOW).toISOString(),
  endedAt: new Date(NOW + 31_000).toISOString(),
  endReason: FollowEnd.Quiet,
  passes: 2,
  changes: 1,
  failures: [],
  gaps: 0,
  resumedWatches: { fromFollow: 0, fromApiserver: 0 },
};

describe('followAfterPass', () => {
  it('runs the follow with the wait options and reports it', async () => {
    const runs: FollowOptions[] = [];
    const heard: PassResult[] = [];
    const { tenantApi, hostApi } = clusters([], []);
    const report = await followAfterPass({
      quietSeconds: 30,
      woken: true,
      dryRun: false,
      pass: passResult(0, { leaseHeld: HELD }),
      untilMs: NOW + 60_000,
      now: NOW,
      passOptions: { tenant: TENANT, tenantApi, hostApi, sinks: [] },
      run: async (options) => {
        runs.push(options);
        options.onPass?.(passResult(1), 1);
        return FOLLOWED;
      },
      onPass: (result) => heard.push(result),
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ quietSeconds: 30, whenHeld: 'wait', untilMs: NOW + 60_000 });
    expect(runs[0]?.signal?.aborted).toBe(false);
    expect(heard).toHaveLength(1);
    expect(report).toMatchObject({ followed: true, seconds: 31, passes: 2, changes: 1 });
  });
});

describe('the handler, woken', () => {
  const output = captureOutput();
  const emf = () =>
    output
      .text()
      .split('\n')
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  const context = lambdaContext(120_000);

  async function invoke(event: Record<string, unknown>) {
    const { handler, follows } = followingHandler({ env: SYNC_ENV, followed: FOLLOWED });
    // The first invocation creates the copy; the second finds the tenant converged (idle).
    await handler({ tenant: TENANT }, context);
    follows.length = 0;
    output.clear();
    const summary = await handler(event, context);
    return { summary, follows };
  }

  it('an idle tenant without follow config, woken: follows with the wake default, counts a wake', async () => {
    const { summary, follows } = await invoke({ tenant: TENANT, wake: true });
    expect(follows).toHaveLength(1);
    expect(follows[0]).toMatchObject({
      quietSeconds: DEFAULT_WAKE_QUIET_SECONDS,
      whenHeld: 'exit',
    });
    expect(summary.follow).toMatchObject({ followed: true });
    // Listed in full, not resumed: no wait for a watch bookmark before the change is written.
    expect(summary).toMatchObject({ full: false, path: 'full' });
    expect(emf()[0]).toMatchObject({ Wakes: 1 });
  });

  it('the same tenant on its schedule: one pass, no follow, no wake', async () => {
    const { summary, follows } = await invoke({ tenant: TENANT });
    expect(follows).toEqual([]);
    expect(summary.follow).toBeUndefined();
    expect(summary.path).not.toBe('full');
    expect(emf()[0]).toMatchObject({ Wakes: 0 });
  });
});
