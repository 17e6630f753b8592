/**
 * Coalescing wakes: a burst of audit batches gives one invocation, and a tenant whose woken
 * function is still following gets no second one.
 *
 * What the wake endpoint knows is only when it invoked a tenant's function and when it last heard
 * of a change in that tenant. What it needs to know is whether a function of that tenant is still
 * following, because a following function converges every change it sees by its own watches, and
 * a second invocation would only find the lease held and exit. A woken function follows until
 * `quietSeconds` pass without a change (functions/sync/follow.ts), or until its timeout. So, per
 * tenant:
 *
 * - never invoked (this process): invoke;
 * - the last change heard is older than the tenant's quiet time (less the delivery slack below):
 *   the follow may have ended for want of changes, invoke;
 * - the last invocation is older than the function's timeout: whatever it did, it has ended,
 *   invoke;
 * - otherwise the follow is (as far as the endpoint can tell) running and will see this change
 *   itself: coalesce.
 *
 * The delivery slack: an audit batch reaches the endpoint up to the batch's maximum wait plus the
 * network after the change, while the follow's quiet clock started at the change itself. Invoking
 * a little early costs one short invocation (it finds the lease held, or a quiet tenant, and
 * exits); invoking late loses the wake until the next tick. So the rule errs early.
 *
 * It is a guess, and need not be more: the sync function's lease is the real guard (one pass or
 * follow writes per tenant), and the schedule converges anything a lost wake missed. The memory is
 * per process (a second Lambda container starts with none and invokes once more, which the lease
 * absorbs); it holds one entry per tenant that authenticated, so it is bounded by the tenants.
 */

/** How long a tenant's woken function follows, as the endpoint must assume it. */
export interface WakeWindow {
  /** The tenant's `quietSeconds`, in ms: a follow ends after this long without a change. */
  quietMs: number;
  /** The sync function's timeout, in ms: no invocation runs longer. */
  maxInvocationMs: number;
}

/**
 * The quiet time of a woken tenant that sets no `follow.quietSeconds`: long enough to cover the
 * steps of a rollout that wait on the host (a Pod becoming ready), short against a tick.
 */
export const DEFAULT_WAKE_QUIET_SECONDS = 30;

/** Audit delivery delay allowed for by default: batch max wait (250 ms) plus the network, with room for a loaded apiserver. */
export const DEFAULT_DELIVERY_SLACK_MS = 2_000;

/** What the coalescer decided for one change. */
export type CoalesceDecision =
  | { invoke: true; reason: 'first' | 'quiet' | 'expired' }
  | { invoke: false; reason: 'following' };

interface TenantMemory {
  lastInvokeMs: number;
  lastChangeMs: number;
}

/** The per-tenant memory and rule of the module doc. */
export class WakeCoalescer {
  private readonly memory = new Map<string, TenantMemory>();

  constructor(private readonly slackMs = DEFAULT_DELIVERY_SLACK_MS) {}

  /**
   * Hears a change of `tenant` at `now` and decides. An invoke decision is recorded at once (before
   * the invoke is sent), so concurrent requests of a burst coalesce behind the first; call
   * {@link invokeFailed} if the invoke could not be sent.
   */
  change(tenant: string, now: number, window: WakeWindow): CoalesceDecision {
    const seen = this.memory.get(tenant);
    const decision = decide(seen, now, window, this.slackMs);
    if (decision.invoke) this.memory.set(tenant, { lastInvokeMs: now, lastChangeMs: now });
    else if (seen) seen.lastChangeMs = Math.max(seen.lastChangeMs, now);
    return decision;
  }

  /** Forgets the invoke of `tenant` that failed to be sent, so the next change invokes again. */
  invokeFailed(tenant: string): void {
    this.memory.delete(tenant);
  }
}

function decide(
  seen: TenantMemory | undefined,
  now: number,
  window: WakeWindow,
  slackMs: number,
): CoalesceDecision {
  if (seen === undefined) return { invoke: true, reason: 'first' };
  if (now - seen.lastInvokeMs >= window.maxInvocationMs) return { invoke: true, reason: 'expired' };
  if (now - seen.lastChangeMs >= Math.max(0, window.quietMs - slackMs))
    return { invoke: true, reason: 'quiet' };
  return { invoke: false, reason: 'following' };
}
