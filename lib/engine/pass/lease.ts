/**
 * One pass per tenant (`tenant/tenant-lease.ts`): a pass that writes holds the tenant's Lease from
 * its first write to its end; a pass that finds it held writes nothing (no copies, no status, no
 * Events) and its result says who holds it and since when. The sinks hear every Decision as it is
 * made, and the end of the pass only once the lease has said whether the pass stands.
 */
import type { Clock, ClusterApi, Decision, DecisionSink, PassResult } from '../../ports/index.js';
import { deliver, finishSinks } from '../context/decisions.js';
import { leaseGuarded } from '../tenant/lease-guard.js';
import { LeaseHeldError, TenantLease } from '../tenant/tenant-lease.js';
import { leaseHeldResult } from './result.js';

/** Decisions reach the sinks as they are made; the end of the pass only once it is known. */
class DeferredEnd implements DecisionSink {
  constructor(private readonly sinks: readonly DecisionSink[]) {}
  decision(decision: Decision): void {
    deliver(this.sinks, decision);
  }
  async passFinished(): Promise<void> {}
  finish(result: PassResult): Promise<void> {
    return finishSinks(this.sinks, result);
  }
}

/** What a leased pass needs to know of the pass it guards. */
export interface LeasedRun {
  tenant: string;
  passId: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  sinks: readonly DecisionSink[];
  clock: Clock;
  /** When the lease must end at the latest (the pass deadline plus its reserve). */
  untilMs: number | undefined;
}

/**
 * Runs `story` with a host client that takes the tenant's lease before its first write and with
 * sinks that hear the end of the pass only after the lease decided it; releases the lease at the
 * end, whatever happened.
 */
export async function withTenantLease(
  run: LeasedRun,
  story: (hostApi: ClusterApi, sinks: readonly DecisionSink[]) => Promise<PassResult>,
): Promise<PassResult> {
  const { tenant, passId, clock } = run;
  const lease = new TenantLease(run.hostApi, tenant, passId, clock, run.untilMs);
  const hostApi = leaseGuarded(run.hostApi, lease, tenant);
  const end = new DeferredEnd(run.sinks);
  const start = {
    atMs: clock.now(),
    tenant: run.tenantApi.requestCount(),
    host: hostApi.requestCount(),
  };
  try {
    let result: PassResult;
    try {
      result = await story(hostApi, [end]);
      if (lease.refused) throw lease.refused;
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      result = leaseHeldResult(error, { passId, tenant }, start, {
        clock,
        tenant: run.tenantApi.requestCount(),
        host: hostApi.requestCount(),
      });
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
