/**
 * The pass as callers run it: the story of `pass.ts` inside its guards.
 * - Deadlines (`deadlines.ts`): every cluster request of the pass ends by the pass deadline plus
 *   the reporting reserve; the work itself by the deadline (see `syncKind`).
 * - One pass per tenant (`tenant-lease.ts`): a pass that writes holds the tenant's Lease from its
 *   first write to its end; a pass that finds it held writes nothing (no copies, no status, no
 *   Events) and its result says who holds it and since when.
 */
import { randomUUID } from 'node:crypto';
import {
  type Decision,
  type DecisionSink,
  type PassResult,
  systemClock,
  withRequestDeadline,
} from '../../ports/index.js';
import { passEndDeadline } from '../bounds/deadlines.js';
import { DecisionRecorder, emptyCounts } from '../context/decisions.js';
import { leaseGuarded } from '../tenant/lease-guard.js';
import { LeaseHeldError, TenantLease } from '../tenant/tenant-lease.js';
import { requestDelta, runPass as runPassStory, type PassOptions as StoryOptions } from './pass.js';

export interface PassOptions extends StoryOptions {
  /**
   * Hold the tenant's Lease from the pass's first write to its end, and write nothing when
   * another pass holds it. The `tenantplane` command and the sync function always do; a dry run
   * never writes, so it never takes it.
   */
  lease?: boolean;
}

/**
 * Runs one bounded convergence pass for `options.tenant` (see `pass.ts` for what a pass does and
 * throws), every request bounded by the deadline and the reserve after it, and, with `lease`,
 * writing only while it holds the tenant's lease.
 */
export function runPass(options: PassOptions): Promise<PassResult> {
  const end = passEndDeadline(options.budget ?? {});
  const { lease, ...story } = options;
  return withRequestDeadline(end, () =>
    lease === true && options.dryRun !== true ? leasedPass(story, end?.atMs) : runPassStory(story),
  );
}

/** Decisions reach the sinks as they are made; the end of the pass only once it is known. */
class DeferredEnd implements DecisionSink {
  result: PassResult | undefined;
  constructor(private readonly sinks: readonly DecisionSink[]) {}
  decision(decision: Decision): void {
    for (const sink of this.sinks) {
      try {
        sink.decision(decision);
      } catch {
        // A sink never throws into the pass.
      }
    }
  }
  async passFinished(result: PassResult): Promise<void> {
    this.result = result;
  }
  finish(result: PassResult): Promise<void> {
    return new DecisionRecorder(this.sinks).finish(result);
  }
}

async function leasedPass(options: StoryOptions, untilMs: number | undefined): Promise<PassResult> {
  const clock = options.clock ?? systemClock;
  const passId = options.passId ?? randomUUID();
  const lease = new TenantLease(options.hostApi, options.tenant, passId, clock, untilMs);
  const hostApi = leaseGuarded(options.hostApi, lease, options.tenant);
  const end = new DeferredEnd(options.sinks ?? []);
  const startedAtMs = clock.now();
  const before = { tenant: options.tenantApi.requestCount(), host: hostApi.requestCount() };
  try {
    let result: PassResult;
    try {
      result = await runPassStory({ ...options, passId, hostApi, sinks: [end] });
      if (lease.refused) throw lease.refused;
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      const finishedAtMs = clock.now();
      result = {
        passId,
        tenant: options.tenant,
        dryRun: false,
        startedAt: new Date(startedAtMs).toISOString(),
        finishedAt: new Date(finishedAtMs).toISOString(),
        durationMs: Math.max(0, finishedAtMs - startedAtMs),
        complete: false,
        incompleteReason: error.message,
        counts: emptyCounts(),
        objectsSeen: {},
        errors: [],
        requests: {
          tenant: requestDelta(options.tenantApi.requestCount(), before.tenant),
          host: requestDelta(hostApi.requestCount(), before.host),
        },
        decisions: [],
        statusWritten: false,
        leaseHeld: error.holding,
      };
    }
    if (lease.unavailable) {
      result.warnings = [
        ...(result.warnings ?? []),
        { reason: 'LeaseUnavailable', message: lease.unavailable },
      ];
    }
    await end.finish(result);
    return result;
  } finally {
    await lease.release();
  }
}
