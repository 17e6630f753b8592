/**
 * Follow mode in the function (docs/follow-mode.md): after its pass, an invocation of a followed
 * tenant (`follow.quietSeconds` in config/tenants.yaml) keeps following the tenant while it is
 * active, so the next steps of a rollout converge in seconds instead of at the next ticks.
 *
 * Whether to follow is decided on the pass the invocation ran first, exactly as an unfollowed
 * tenant's invocation runs it: a pass that wrote nothing found the tenant idle, and the
 * invocation ends right after it, as it does today, so an idle tenant costs a resumed pass per
 * tick and nothing more. A pass that wrote something found the tenant active: the invocation
 * then follows it (`runFollow`) until `quietSeconds` pass without a change, or its deadline.
 * Another process holding the tenant's lease (a follower such as `tenantplane sync --follow`)
 * means the tick is dropped: nothing written, no error, no retry.
 */
import type { FollowOptions, FollowResult, PassOptions } from '../../lib/engine/index.js';
import type { PassResult } from '../../lib/ports/index.js';

/**
 * A follow needs at least this much time before its deadline to run a pass (the engine ends a
 * follow 2 s before its deadline; a resumed pass takes well under a second).
 */
export const MIN_FOLLOW_MS = 5_000;

/** Whether an invocation goes on following after its pass, and why not. */
export type FollowDecision = { follow: true } | { follow: false; reason: string };

/** What an invocation knows when it decides (see {@link decideFollow}). */
export interface FollowContext {
  /** `follow.quietSeconds` of the tenant; undefined for an unfollowed tenant. */
  quietSeconds?: number;
  dryRun: boolean;
  /** The first pass of the invocation. */
  pass: PassResult;
  /** Epoch ms by which a follow must have ended (the pass deadline), if the context says. */
  untilMs?: number;
  now: number;
}

/** The writes a pass made on both sides (its bookkeeping, status and lease, not counted). */
export function passWrites(pass: PassResult): number {
  return pass.requests.tenant.writes + pass.requests.host.writes;
}

/**
 * Decides whether to follow after the first pass (see the module doc). A pass that left work
 * without writing anything (a lasting failure) is not activity: following it would only retry
 * it, which the next tick does as well, for the price of a pass instead of `quietSeconds`.
 */
export function decideFollow(ctx: FollowContext): FollowDecision {
  if (ctx.quietSeconds === undefined) return { follow: false, reason: 'not a followed tenant' };
  if (ctx.dryRun) return { follow: false, reason: 'a dry run writes nothing to follow' };
  if (ctx.pass.leaseHeld)
    return { follow: false, reason: `the lease is held by ${ctx.pass.leaseHeld.holder}` };
  // A follow writes only under the lease: one that cannot take it would not start.
  if (ctx.pass.warnings?.some((w) => w.reason === 'LeaseUnavailable'))
    return { follow: false, reason: 'the lease could not be taken: a follow writes only under it' };
  if (passWrites(ctx.pass) === 0)
    return { follow: false, reason: 'the pass wrote nothing: the tenant is idle' };
  if (ctx.untilMs === undefined)
    return { follow: false, reason: 'no deadline: the Lambda context gave no remaining time' };
  if (ctx.untilMs - ctx.now < MIN_FOLLOW_MS)
    return { follow: false, reason: 'too little time left before the deadline' };
  return { follow: true };
}

/** What an invocation reports about following after its pass. */
export type InvocationFollow =
  | { followed: false; reason: string }
  | {
      followed: true;
      /** Seconds from the start of the follow to its end. */
      seconds: number;
      passes: number;
      changes: number;
      latency?: FollowResult['latency'];
      endReason: FollowResult['endReason'];
      /** Who held the lease, when the follow found it taken after the pass. */
      heldBy?: FollowResult['heldBy'];
      /** Passes of the follow that failed as a whole (the follow went on). */
      failures: number;
      /** Watches that failed and were answered by a pass. */
      gaps: number;
    };

/** The report of a follow that ran. */
export function followReport(result: FollowResult): InvocationFollow {
  const seconds = Math.max(0, Date.parse(result.endedAt) - Date.parse(result.startedAt)) / 1000;
  return {
    followed: true,
    seconds,
    passes: result.passes,
    changes: result.changes,
    ...(result.latency ? { latency: result.latency } : {}),
    endReason: result.endReason,
    ...(result.heldBy ? { heldBy: result.heldBy } : {}),
    failures: result.failures.length,
    gaps: result.gaps,
  };
}

/**
 * The follow's options from the first pass's: the same clients, sinks, clock, memory and budget,
 * but no pass id (each pass of the follow gets its own) and no deadline of its own (`untilMs`
 * bounds the follow, and the engine bounds each of its passes within it); `whenHeld: 'exit'`, so
 * an invocation never waits behind another follower.
 */
export function followOptions(
  pass: PassOptions,
  quietSeconds: number,
  untilMs: number,
): FollowOptions {
  const { passId: _id, dryRun: _dry, path: _path, lease: _lease, budget, ...rest } = pass;
  const { deadline: _deadline, ...bounds } = budget ?? {};
  return { ...rest, budget: bounds, quietSeconds, untilMs, whenHeld: 'exit' };
}
