/**
 * Follow mode in the sync handler: which invocations follow after their pass (the decision, table
 * by table), what they hand `runFollow` (quiet seconds, the deadline as `untilMs`, `whenHeld:
 * 'exit'`, no pass id or deadline of their own), what they report and publish (EMF follow
 * metrics, each follow pass's metrics), and a tick dropped behind another follower. The first
 * pass is the real engine over in-memory clusters; `runFollow` is injected (the in-memory fakes
 * hold no watches), and the follow itself is tested in test/integration/engine/follow.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import {
  decideFollow,
  type FollowContext,
  followOptions,
  followReport,
  MIN_FOLLOW_MS,
} from '../../../functions/sync/follow.js';
import type { SyncHandlerDeps } from '../../../functions/sync/handler.js';
import { readSettings, SettingsError } from '../../../functions/sync/settings.js';
import { FollowEnd, type FollowResult, runPass } from '../../../lib/engine/index.js';
import { clusters, TENANT } from '../engine/support.js';
import {
  captureOutput,
  followingHandler,
  lambdaContext,
  NOW,
  passResult,
  SYNC_ENV,
} from './support.js';

const ENV = { ...SYNC_ENV, FOLLOW_QUIET_SECONDS: '30' };

const FOLLOWED: FollowResult = {
  tenant: TENANT,
  holder: 'follow-1',
  startedAt: new Date(NOW).toISOString(),
  endedAt: new Date(NOW + 42_500).toISOString(),
  endReason: FollowEnd.Quiet,
  passes: 4,
  changes: 9,
  latency: { p50Ms: 180, p99Ms: 640, maxMs: 700 },
  failures: [],
  gaps: 1,
  resumedWatches: { fromFollow: 3, fromApiserver: 1 },
};

const output = captureOutput();
const lines = output.lines;
const emf = () => lines().find((l) => '_aws' in l) ?? {};

function setup(env: Record<string, string> = ENV, deps: Partial<SyncHandlerDeps> = {}) {
  return followingHandler({
    env,
    followed: FOLLOWED,
    // One pass of the follow, as the engine would hear it end.
    duringFollow: (options) => options.onPass?.(passResult(2, { durationMs: 35 }), 2),
    deps,
  });
}

describe('decideFollow', () => {
  const base: FollowContext = {
    quietSeconds: 30,
    dryRun: false,
    pass: passResult(3),
    untilMs: NOW + 60_000,
    now: NOW,
  };
  it.each<{ name: string; ctx: Partial<FollowContext>; follow: boolean; reason?: RegExp }>([
    { name: 'a pass that wrote: the tenant is active', ctx: {}, follow: true },
    {
      name: 'a pass that wrote only on the tenant (status back) is activity too',
      ctx: {
        pass: passResult(0, {
          requests: { tenant: { reads: 1, writes: 2 }, host: { reads: 1, writes: 0 } },
        }),
      },
      follow: true,
    },
    {
      name: 'a pass that could not take the lease (no grant): a follow would not start',
      ctx: {
        pass: passResult(3, {
          warnings: [{ reason: 'LeaseUnavailable', message: 'leases is forbidden' }],
        }),
      },
      follow: false,
      reason: /lease could not be taken/,
    },
    {
      name: 'a pass that wrote nothing: idle, ends after it',
      ctx: { pass: passResult(0) },
      follow: false,
      reason: /idle/,
    },
    {
      name: 'an incomplete pass that wrote nothing (a lasting failure) is not activity',
      ctx: { pass: passResult(0, { complete: false, incompleteReason: 'list failed' }) },
      follow: false,
      reason: /idle/,
    },
    {
      name: 'an unfollowed tenant',
      ctx: { quietSeconds: undefined },
      follow: false,
      reason: /not a followed/,
    },
    { name: 'a dry run', ctx: { dryRun: true }, follow: false, reason: /dry run/ },
    {
      name: 'the lease held by another follower: the tick is dropped',
      ctx: {
        pass: passResult(0, {
          leaseHeld: { lease: 'ns/l', holder: 'cli-follow@laptop', since: 's', expires: 'e' },
        }),
      },
      follow: false,
      reason: /held by cli-follow@laptop/,
    },
    {
      name: 'no time left before the deadline',
      ctx: { untilMs: NOW + MIN_FOLLOW_MS - 1 },
      follow: false,
      reason: /too little time/,
    },
    { name: 'no deadline known', ctx: { untilMs: undefined }, follow: false, reason: /deadline/ },
  ])('$name', ({ ctx, follow, reason }) => {
    const decision = decideFollow({ ...base, ...ctx });
    expect(decision.follow).toBe(follow);
    if (!decision.follow) expect(decision.reason).toMatch(reason!);
  });
});

describe('settings', () => {
  it('reads FOLLOW_QUIET_SECONDS, absent for an unfollowed tenant, and refuses a bad value', () => {
    expect(readSettings(ENV).followQuietSeconds).toBe(30);
    const { FOLLOW_QUIET_SECONDS: _, ...unfollowed } = ENV;
    expect(readSettings(unfollowed)).not.toHaveProperty('followQuietSeconds');
    for (const bad of ['0', '2.5', 'soon'])
      expect(() => readSettings({ ...ENV, FOLLOW_QUIET_SECONDS: bad })).toThrow(
        new SettingsError(
          `environment variable FOLLOW_QUIET_SECONDS must be an integer >= 1, got ${JSON.stringify(bad)}`,
        ),
      );
  });
});

describe('followOptions and followReport', () => {
  it('keeps clients, sinks, memo and bounds; drops the pass id, dry run, path, lease and deadline', () => {
    const { tenantApi, hostApi } = clusters([], []);
    const options = followOptions(
      {
        tenant: TENANT,
        tenantApi,
        hostApi,
        sinks: [],
        passId: 'pass-1',
        dryRun: false,
        path: 'full',
        lease: true,
        budget: { deadline: NOW + 50_000, maxWrites: 10, reportReserveMs: 5000 },
      },
      30,
      NOW + 50_000,
    );
    expect(options).toEqual({
      tenant: TENANT,
      tenantApi,
      hostApi,
      sinks: [],
      budget: { maxWrites: 10, reportReserveMs: 5000 },
      quietSeconds: 30,
      untilMs: NOW + 50_000,
      whenHeld: 'exit',
    });
  });

  it('reports seconds followed, passes, changes, latency, the end and counts', () => {
    expect(followReport(FOLLOWED)).toEqual({
      followed: true,
      seconds: 42.5,
      passes: 4,
      changes: 9,
      latency: { p50Ms: 180, p99Ms: 640, maxMs: 700 },
      endReason: 'quiet',
      failures: 0,
      gaps: 1,
    });
  });
});

describe('sync handler of a followed tenant', () => {
  it('follows after a pass that wrote, until the deadline less the margin, and reports it', async () => {
    const { handler, follows } = setup();

    const summary = await handler({ tenant: TENANT }, lambdaContext(900_000));

    expect(follows).toHaveLength(1);
    const [options] = follows;
    expect(options).toMatchObject({
      tenant: TENANT,
      quietSeconds: 30,
      untilMs: NOW + 900_000 - 10_000,
      whenHeld: 'exit',
      budget: { reportReserveMs: 5000 },
    });
    expect(options!.passId).toBeUndefined();
    expect(options!.budget).not.toHaveProperty('deadline');
    expect(summary.counts.Create).toBe(1);
    expect(summary.follow).toEqual(followReport(FOLLOWED));
    // The first pass and the follow's pass each publish their metrics; the follow its own.
    expect(emf()).toMatchObject({
      Creates: [1, 2],
      PassDurationMs: [expect.any(Number), 35],
      FollowedSeconds: 42.5,
      FollowPasses: 4,
      FollowChanges: 9,
      ChangeLatencyP50: 180,
      ChangeLatencyP99: 640,
      FollowFailures: 0,
      TicksDropped: 0,
    });
    expect(lines().find((l) => l.message === 'follow ended')).toMatchObject({
      endReason: 'quiet',
      changes: 9,
    });
  });

  it('ends right after a pass that wrote nothing: an idle tick follows nothing', async () => {
    const { handler, follows } = setup();
    await handler({ tenant: TENANT }, lambdaContext(900_000)); // creates the copy, follows
    output.clear();

    const summary = await handler({ tenant: TENANT }, lambdaContext(900_000));

    expect(follows).toHaveLength(1);
    expect(summary.follow).toEqual({
      followed: false,
      reason: 'the pass wrote nothing: the tenant is idle',
    });
    expect(emf()).toMatchObject({ FollowedSeconds: 0, TicksDropped: 0 });
    expect(emf()).not.toHaveProperty('ChangeLatencyP99');
  });

  it('drops a tick whose pass found the lease held: nothing followed, no error', async () => {
    const leaseHeld = {
      lease: 'tenant-dev/tenantplane-dev',
      holder: 'follow-abc (tenantplane sync --follow)',
      since: new Date(NOW - 60_000).toISOString(),
      expires: new Date(NOW + 30_000).toISOString(),
    };
    const { handler, follows } = setup(ENV, { runPass: async () => passResult(0, { leaseHeld }) });

    const summary = await handler({ tenant: TENANT }, lambdaContext(900_000));

    expect(follows).toHaveLength(0);
    expect(summary.leaseHeld).toEqual(leaseHeld);
    expect(summary.follow).toMatchObject({
      followed: false,
      reason: expect.stringMatching(/held/),
    });
    expect(emf()).toMatchObject({ TicksDropped: 1, FollowedSeconds: 0 });
    expect(
      lines().find((l) => l.message === 'tick dropped: the tenant lease is held'),
    ).toMatchObject({ holder: leaseHeld.holder, level: 'INFO' });
    expect(lines().some((l) => l.level === 'ERROR')).toBe(false);
  });

  it('an unfollowed tenant runs its pass only, as before', async () => {
    const { FOLLOW_QUIET_SECONDS: _, ...unfollowed } = ENV;
    const { handler, follows } = setup(unfollowed, { runPass });

    const summary = await handler({ tenant: TENANT }, lambdaContext(120_000));

    expect(follows).toHaveLength(0);
    expect(summary).not.toHaveProperty('follow');
    expect(emf()).not.toHaveProperty('FollowedSeconds');
  });
});
