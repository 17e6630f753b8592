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
 *
 * A woken invocation (`{"wake": true}`, sent by the wake endpoint when the tenant's apiserver
 * reported a write: docs/wake.md) follows whatever its pass found. The wake says the tenant is
 * active now, and its first pass may find nothing to write (a scheduled pass converged the change
 * first, or an earlier wake's pass did) or run between the two steps of a rollout: deciding on
 * the pass's writes would drop
 * exactly the wakes that matter, and then the tenant waits for the next tick. A tenant woken
 * without `follow.quietSeconds` follows for {@link DEFAULT_WAKE_QUIET_SECONDS}. A woken pass that
 * found the lease held does not give up at once either: the holder may be a scheduled pass that
 * listed before the change and will end without following, so the follow waits for the lease, at
 * most {@link WAKE_HELD_WAIT_MS}, and gives up at once when a follow holds it (that follow
 * converges the change itself).
 */
import type { FollowOptions, FollowResult, PassOptions } from '../../lib/engine/index.js';
import type { PassResult } from '../../lib/ports/index.js';
// The one constant it needs, from its module: the wake endpoint's code stays out of this bundle.
import { DEFAULT_WAKE_QUIET_SECONDS } from '../../lib/wake/coalesce.js';

/** How long a woken follow waits for a lease a pass holds before it gives up. */
export const WAKE_HELD_WAIT_MS = 15_000;

/**
 * The path of an invocation's first pass. A woken one lists its kinds in full: a resumed pass
 * would wait 1 to 2 s for the tenant apiserver's watch bookmark (docs/follow-mode.md), which was
 * most of a wake's latency, while a full listing of a small or medium tenant takes a fraction of
 * that (a full steady pass of 10,000 objects takes less than a resumed one). It misses nothing:
 * the audit event that woke it was sent after the write was committed, so a listing from now
 * sees it. A scheduled pass resumes (`auto`); `{"full": true}` asks for a full pass anyway.
 */
export function firstPassPath(event: { full: boolean; wake: boolean }): 'full' | 'auto' {
  return event.full || event.wake ? 'full' : 'auto';
}

/** The quiet seconds an invocation follows with, if it may follow at all. */
export function followQuietSeconds(
  configured: number | undefined,
  woken: boolean,
): number | undefined {
  return configured ?? (woken ? DEFAULT_WAKE_QUIET_SECONDS : undefined);
}

/**
 * A follow needs at least this much time before its deadline to run a pass (the engine ends a
 * follow 2 s before its deadline; a resumed pass takes well under a second).
 */
export const MIN_FOLLOW_MS = 5_000;

/** Whether an invocation goes on following after its pass, and why not. */
export type FollowDecision =
  | { follow: true; whenHeld: 'exit' | 'wait' }
  | { follow: false; reason: string };

/** What an invocation knows when it decides (see {@link decideFollow}). */
export interface FollowContext {
  /** `follow.quietSeconds` of the tenant; undefined for an unfollowed tenant. */
  quietSeconds?: number;
  /** Invoked by the wake endpoint (`{"wake": true}`). */
  woken?: boolean;
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
  if (ctx.pass.leaseHeld && !ctx.woken)
    return { follow: false, reason: `the lease is held by ${ctx.pass.leaseHeld.holder}` };
  // A follow writes only under the lease: one that cannot take it would not start.
  if (ctx.pass.warnings?.some((w) => w.reason === 'LeaseUnavailable'))
    return { follow: false, reason: 'the lease could not be taken: a follow writes only under it' };
  if (passWrites(ctx.pass) === 0 && !ctx.woken)
    return { follow: false, reason: 'the pass wrote nothing: the tenant is idle' };
  if (ctx.untilMs === undefined)
    return { follow: false, reason: 'no deadline: the Lambda context gave no remaining time' };
  if (ctx.untilMs - ctx.now < MIN_FOLLOW_MS)
    return { follow: false, reason: 'too little time left before the deadline' };
  return { follow: true, whenHeld: ctx.woken && ctx.pass.leaseHeld ? 'wait' : 'exit' };
}

/** A lease holder that is a follow (`runFollow`'s holder names its `follow-` id). */
export function isFollowHolder(holder: string): boolean {
  return /\bfollow-/.test(holder);
}

/** The follow options that bound a woken follow's wait for the lease, and their clean-up. */
export interface HeldWait {
  options: Pick<FollowOptions, 'whenHeld' | 'signal' | 'onHeld'>;
  /** The follow ran a pass: it holds the lease, the wait is over. */
  passed(): void;
  /** The follow ended. */
  done(): void;
}

/**
 * What `whenHeld` means for the follow: `exit` as before; `wait` for at most
 * {@link WAKE_HELD_WAIT_MS}, and not at all behind another follow (see the module doc).
 */
export function heldWait(whenHeld: 'exit' | 'wait', waitMs = WAKE_HELD_WAIT_MS): HeldWait {
  if (whenHeld === 'exit') return { options: { whenHeld }, passed() {}, done() {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  timer.unref?.();
  return {
    options: {
      whenHeld,
      signal: controller.signal,
      onHeld: (error) => {
        if (isFollowHolder(error.holding.holder)) controller.abort();
      },
    },
    passed: () => clearTimeout(timer),
    done: () => clearTimeout(timer),
  };
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

/** What {@link followAfterPass} needs: the decision's context and how to run the follow. */
export interface FollowAfterPass extends FollowContext {
  quietSeconds: number;
  /** The first pass's options, which the follow's derive from. */
  passOptions: PassOptions;
  run: (options: FollowOptions) => Promise<FollowResult>;
  /** Hears each pass of the follow as it ends. */
  onPass: (result: PassResult) => void;
}

/** Decides ({@link decideFollow}) and, if so, follows; returns what the invocation reports. */
export async function followAfterPass(args: FollowAfterPass): Promise<InvocationFollow> {
  const decision = decideFollow(args);
  if (!decision.follow) return { followed: false, reason: decision.reason };
  const { untilMs } = args;
  if (untilMs === undefined) return { followed: false, reason: 'no deadline' };
  const wait = heldWait(decision.whenHeld);
  try {
    const result = await args.run({
      ...followOptions(args.passOptions, args.quietSeconds, untilMs),
      ...wait.options,
      onPass: (each) => {
        wait.passed();
        args.onPass(each);
      },
    });
    return followReport(result);
  } finally {
    wait.done();
  }
}
