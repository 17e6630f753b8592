/**
 * Follow mode: after a pass, keep watching what a pass reads (`triggers.ts`) and converge each
 * change as it arrives, batched over {@link DEFAULT_BATCH_MS}, by running the next pass: the same
 * code, Decisions, refusals, budgets and deadlines as any pass, on its resumed path (each pass
 * resumes from the point the last one recorded, so it reads only what changed). Not a second
 * engine: a follow is a sequence of passes that start when there is something to do, instead of
 * when a schedule says.
 *
 * The follow holds the tenant's lease from its start to its end (renewed while it runs), so no
 * other pass or follow writes meanwhile; one that finds the lease held says who holds it and
 * waits for it, or returns at once (`whenHeld`). A pass that ran out of its budget is followed by
 * the next one at once; a watch that failed (410, a cut, a stall) is answered by a pass, so no
 * change is lost. It ends at `untilMs`, on `signal` (finishing the pass in hand), after
 * `quietSeconds` with no change, or when the TenantCluster is deleted, and then records how it
 * went on the TenantCluster (`follow-status.ts`), as every pass recorded its own.
 */
import { errorMessage } from '../../common/index.js';
import {
  type Decision,
  type DecisionSink,
  type PassResult,
  systemClock,
  TENANT_CLUSTER,
} from '../../ports/index.js';
import { InSyncMemo } from '../context/in-sync-memo.js';
import { TenantClusterNotFoundError } from '../errors.js';
import type { PassOptions } from '../pass/options.js';
import { runPass } from '../pass/pass.js';
import { parseSyncPolicy } from '../policy/policy.js';
import { leaseGuarded, tenantLeaseGuarded } from '../tenant/lease-guard.js';
import { readTenantClusterStatus } from '../tenant/status.js';
import { LeaseHeldError, leaseNamespaceOf, TenantLease } from '../tenant/tenant-lease.js';
import { FollowEnd, FollowRecord, type FollowResult } from './follow-status.js';
import { FollowedChanges } from './followed-changes.js';
import { missingLeaseVerbs, refuseWithoutLease } from './lease-grants.js';
import { followTriggers, pause, TriggerWatches } from './triggers.js';
import { Wakeups } from './wakeups.js';

export { FollowEnd, type FollowResult } from './follow-status.js';

/** Changes that arrive within this many milliseconds of the first go to one pass. */
export const DEFAULT_BATCH_MS = 20;

/** Each pass of a follow gets at most this long, or what is left of the follow. */
const PASS_MS = 60_000;

/** How often a follow that found the lease held tries it again. */
const HELD_RETRY_MS = 5_000;

/** A follow ends no later than this long before `untilMs`, so its last pass can finish. */
const END_MARGIN_MS = 2_000;

/** What a caller says about a follow (`runFollow`); the pass options hold for each pass. */
export interface FollowOptions extends Omit<PassOptions, 'lease' | 'dryRun' | 'path'> {
  /** End after this many seconds without a change (none: only on `untilMs` or `signal`). */
  quietSeconds?: number;
  /** Epoch ms by which the follow has ended (a Lambda's deadline less its reserve). */
  untilMs?: number;
  /** Ends the follow after the pass in hand (SIGINT, SIGTERM). */
  signal?: AbortSignal;
  /** When another pass or follow holds the lease: wait for it (default) or return at once. */
  whenHeld?: 'wait' | 'exit';
  /** Hears every pass as it ends, with the changes it converged. */
  onPass?: (result: PassResult, changes: number) => void;
  /** Hears, once, that the lease is held by another and the follow waits. */
  onHeld?: (error: LeaseHeldError) => void;
  batchMs?: number;
  /** How long the server holds each watch before the next is opened (default 60). */
  watchSeconds?: number;
}

/**
 * Follows `options.tenant` (see the module doc) and resolves when the follow ends.
 * @throws TenantClusterNotFoundError, InvalidPolicyError or a cluster error when the follow cannot
 * start (its TenantCluster, policy or watches cannot be read). Failures of its passes are not
 * thrown: they are in the result, and the follow goes on.
 */
export async function runFollow(options: FollowOptions): Promise<FollowResult> {
  const clock = options.clock ?? systemClock;
  const { tenant, hostApi, tenantApi, untilMs } = options;
  const signal = options.signal ?? new AbortController().signal;
  const followId = `follow-${crypto.randomUUID()}`;
  let read = await readPolicy(options);
  const leaseNamespace = leaseNamespaceOf(read.tenantCluster) ?? read.policy.hostNamespace;
  let lease = new TenantLease(hostApi, tenant, followId, clock, untilMs);
  const record = new FollowRecord(hostApi, tenant, lease.holder, clock);

  // The lease first: a follow that cannot write opens no watch, and one that may not write the
  // lease at all does not start (it would otherwise run beside the scheduled passes unguarded).
  refuseWithoutLease(
    tenant,
    leaseNamespace,
    await missingLeaseVerbs(hostApi, tenant, leaseNamespace),
  );
  let told = false;
  for (;;) {
    try {
      lease.namespace = leaseNamespace;
      await lease.take(leaseNamespace);
      refuseWithoutLease(tenant, leaseNamespace, [], lease.unavailableCause);
      break;
    } catch (error) {
      if (!(error instanceof LeaseHeldError)) throw error;
      if (options.whenHeld === 'exit' || ending(signal, untilMs, clock.now())) {
        return record.held(error);
      }
      if (!told) options.onHeld?.(error);
      told = true;
      await pause(HELD_RETRY_MS, signal);
      lease = new TenantLease(hostApi, tenant, followId, clock, untilMs);
    }
  }

  // Every write of the follow, its passes' on either side and its own status.follow, goes
  // behind the lease it holds: once it is lost, nothing more is written.
  const guarded = leaseGuarded(hostApi, lease, tenant);
  const tenantGuarded = tenantLeaseGuarded(tenantApi, lease);
  record.writeThrough(guarded);
  const deletes = new OwnDeletes();
  const wakeups = new Wakeups(clock, (namespace, name) => deletes.took(namespace, name));
  const followed = new FollowedChanges(record.served);
  const watch = async () => {
    const { generation } = read.tenantCluster.metadata;
    const { resume } = readTenantClusterStatus(read.tenantCluster);
    const triggers = followTriggers(tenant, read.policy, Number(generation ?? 0), resume);
    const apis = { tenantApi, hostApi };
    const watches = new TriggerWatches(apis, triggers, wakeups, options.watchSeconds, followed);
    await watches.open();
    return watches;
  };
  const memo = options.memo ?? new InSyncMemo();
  let watches: TriggerWatches | undefined;
  try {
    watches = await watch();
    await record.started();
    let again = true; // the first pass, or one after a pass that left work and made progress
    let retryAt = Infinity; // after a pass that left work and made none (a lasting refusal)
    let throttledUntil = 0; // a server answered 429 and asked for no request before this
    while (record.endReason === undefined) {
      const now = clock.now();
      if (ending(signal, untilMs, now)) {
        record.end(signal.aborted ? FollowEnd.Signal : FollowEnd.Deadline);
        break;
      }
      if (now >= retryAt) {
        again = true;
        retryAt = Infinity;
      }
      if (!again && !wakeups.pending()) {
        const quietMs =
          options.quietSeconds === undefined ? undefined : options.quietSeconds * 1000;
        if (quietMs !== undefined && now - record.lastActivityMs >= quietMs) {
          record.end(FollowEnd.Quiet);
          break;
        }
        const quietAt = quietMs === undefined ? Infinity : record.lastActivityMs + quietMs;
        const endAt = (untilMs ?? Infinity) - END_MARGIN_MS;
        await wakeups.next(Math.min(quietAt, endAt, retryAt), signal);
        continue;
      }
      if (throttledUntil > now) {
        // Changes wait too: a pass now would only be answered 429 again.
        const endAt = (untilMs ?? Infinity) - END_MARGIN_MS;
        await pause(Math.max(0, Math.min(throttledUntil, endAt) - now), signal);
        continue;
      }
      if (wakeups.pending()) await pause(options.batchMs ?? DEFAULT_BATCH_MS, signal);
      const batch = wakeups.take();
      if (batch.deleted) record.end(FollowEnd.Deleted); // this pass cleans up, then it ends
      if (batch.policyChanged && !batch.deleted) {
        // The watches follow the policy they were opened for: open those of the new one first.
        await watches.stop();
        read = await readPolicy(options);
        watches = await watch();
      }
      const deadline = Math.min(clock.now() + PASS_MS, (untilMs ?? Infinity) - END_MARGIN_MS);
      try {
        const result = await runPass({
          ...options,
          passId: undefined, // each pass its own
          tenantApi: followed.wrap(tenantGuarded),
          sinks: [...(options.sinks ?? []), deletes],
          hostApi: guarded,
          lease: false,
          memo,
          path: batch.full ? 'full' : 'auto',
          budget: { ...options.budget, deadline },
        });
        const progress = writesOf(result) > 0;
        await record.passed(result, batch.arrivals, batch.gaps.length, progress);
        options.onPass?.(result, batch.arrivals.length);
        // Left work: at once when it made progress; else again after a back-off, which changes
        // and the quiet end may come before (a deletion the mass-delete guard holds, a refusal).
        again = !result.complete && progress;
        retryAt = result.complete || progress ? Infinity : clock.now() + record.retryMs();
        // Left to the next pass after a 429: it comes once the server said it may, not sooner.
        const notBefore = Date.parse(result.throttled?.notBefore ?? '');
        if (Number.isFinite(notBefore))
          [again, retryAt, throttledUntil] = [true, Infinity, notBefore];
      } catch (error) {
        if (error instanceof LeaseHeldError) {
          record.end(FollowEnd.LeaseLost);
          record.failed(error.message, batch.arrivals);
          break;
        }
        record.failed(errorMessage(error), batch.arrivals);
        again = true;
        await pause(record.retryMs(), signal);
      }
    }
  } finally {
    await watches?.stop();
    await record.finish();
    await lease.release();
  }
  return record.result();
}

/** The host objects the follow's passes deleted, until their deletion is seen (bounded). */
class OwnDeletes implements DecisionSink {
  private readonly names = new Set<string>();

  decision(decision: Decision): void {
    if (decision.action !== 'Delete' || decision.dryRun) return;
    if (this.names.size >= 10_000) this.names.clear(); // a missed one costs one full pass
    this.names.add(`${decision.hostRef.namespace}/${decision.hostRef.name}`);
  }

  async passFinished(): Promise<void> {}

  /** Whether a pass deleted `namespace/name` (forgotten once asked). */
  took(namespace: string, name: string): boolean {
    return this.names.delete(`${namespace}/${name}`);
  }
}

/** The TenantCluster and its policy, as the follow's watches are opened for them. */
async function readPolicy(options: FollowOptions) {
  const tenantCluster = await options.hostApi.get(TENANT_CLUSTER, undefined, options.tenant);
  if (!tenantCluster) throw new TenantClusterNotFoundError(options.tenant);
  return { tenantCluster, policy: parseSyncPolicy(options.tenant, tenantCluster.spec) };
}

/** The writes a pass made on both sides. */
function writesOf(result: PassResult): number {
  return result.requests.tenant.writes + result.requests.host.writes;
}

/** Whether the follow must end now: a signal, or too little time left for another pass. */
function ending(signal: AbortSignal, untilMs: number | undefined, now: number): boolean {
  return signal.aborted || (untilMs !== undefined && untilMs - now <= END_MARGIN_MS);
}
