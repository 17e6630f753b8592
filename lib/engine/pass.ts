/**
 * The convergence pass: for each `toHost` kind in policy order, list the tenant objects, apply
 * their host copies, and garbage-collect orphans, within a budget (deadline, writes, page size,
 * concurrency), recording a Decision for every action.
 */
import { randomUUID } from 'node:crypto';
import {
  type Clock,
  type ClusterApi,
  ClusterError,
  type ClusterRole,
  type DecisionAction,
  type DecisionSink,
  isClusterError,
  type KubeObject,
  type ObjectError,
  type ObjectRef,
  type PassResult,
  type RequestCount,
  systemClock,
} from '../ports/index.js';
import { type ApplyOutcome, applyObject, type SourceIdentity } from './apply.js';
import { DecisionRecorder, emptyCounts, errorMessage, formatObjectError } from './decisions.js';
import { ClusterUnreachableError, PassError, TenantClusterNotFoundError } from './errors.js';
import { deleteCandidate, type GcCandidate, planGc, sourceKey } from './gc.js';
import {
  type CompiledKindRule,
  compileKindRule,
  isExcluded,
  type KindRule,
  parseSyncPolicy,
  type SyncPolicy,
  TENANT_CLUSTER,
} from './policy.js';
import { stableJson, toHostObject } from './transform.js';

/** Bounds of one pass. */
export interface Budget {
  /** Epoch milliseconds after which no new work starts. */
  deadline?: number;
  /** Maximum write requests (create, update, delete) the pass may start. */
  maxWrites?: number;
  /** LIST page size (`limit`). */
  pageSize: number;
  /** Writes in flight at once. */
  concurrency: number;
}

/** Defaults for the budget fields a caller leaves out. */
export const DEFAULT_BUDGET: Budget = Object.freeze({ pageSize: 500, concurrency: 8 });

/** Progress after each page of a kind. */
export interface PassProgress {
  kind: string;
  /** Tenant objects of this kind listed so far. */
  listed: number;
  /** Writes started for this kind so far (dry runs count would-be writes). */
  written: number;
}

export interface PassOptions {
  tenant: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  sinks?: DecisionSink[];
  clock?: Clock;
  budget?: Partial<Budget>;
  /** Compute and report every Decision, write nothing (no host writes, no status). */
  dryRun?: boolean;
  passId?: string;
  onProgress?: (progress: PassProgress) => void;
  /**
   * How old `status.lastPass` may grow before a clean pass that changed nothing rewrites it (default
   * {@link DEFAULT_STATUS_REPORT_INTERVAL_MS}); 0 rewrites it after every pass.
   */
  statusReportIntervalMs?: number;
}

/**
 * An unchanged, clean pass rewrites `status.lastPass` only when the recorded one is older than
 * this. Like the kubelet's node status (report on change, else every few minutes), it keeps a
 * steady state write-free while the status's age still tells an operator that passes run.
 */
export const DEFAULT_STATUS_REPORT_INTERVAL_MS = 10 * 60_000;

/** Maximum errors written to status.lastPass.errors (the CRD's maxItems). */
const STATUS_ERRORS = 20;

/** Why the pass stopped early; set once, by the first bound hit. */
interface StopState {
  reason: string | undefined;
}

/** Runs `worker` over `items` with at most `concurrency` in flight, starting none once `stopped()`. */
async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  worker: (item: T) => Promise<void>,
  stopped: () => boolean,
): Promise<void> {
  let next = 0;
  const lanes = Array.from(
    { length: Math.max(1, Math.min(concurrency, items.length)) },
    async () => {
      while (next < items.length && !stopped()) {
        const item = items[next++] as T;
        await worker(item);
      }
    },
  );
  await Promise.all(lanes);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Requests made between two readings of `ClusterApi.requestCount()`. */
export function requestDelta(after: RequestCount, before: RequestCount): RequestCount {
  return { reads: after.reads - before.reads, writes: after.writes - before.writes };
}

function clusterReason(error: unknown): string | undefined {
  return error instanceof ClusterError ? error.reason : undefined;
}

/**
 * A listed host object as the pass keeps it for the rest of its kind (every host object of the
 * kind in the host namespace is held until GC): a copy without `metadata.managedFields` and
 * `status`, which apply and GC never read. managedFields is most of a small object's size (about
 * 60% of a parsed ConfigMap), so this keeps a tenant with tens of thousands of objects within a
 * small function's memory. Update bodies are unaffected: they never carried managedFields (the
 * server then keeps its record) nor status (`updateBody`). The listed object is not mutated.
 */
export function compactHostObject(object: KubeObject): KubeObject {
  const { status: _status, metadata, ...rest } = object;
  if (!metadata || typeof metadata !== 'object') return { ...rest, metadata } as KubeObject;
  const { managedFields: _managedFields, ...kept } = metadata;
  return { ...rest, metadata: kept };
}

/** One pass over one tenant; holds the mutable state so the steps stay small. */
class Pass {
  readonly errors: ObjectError[] = [];
  readonly objectsSeen: Record<string, number> = {};
  readonly stop: StopState = { reason: undefined };
  readonly incompleteKinds: string[] = [];
  writes = 0;
  private tenantCalls = 0;

  constructor(
    private readonly options: PassOptions,
    private readonly policy: SyncPolicy,
    private readonly budget: Budget,
    private readonly clock: Clock,
    private readonly recorder: DecisionRecorder,
    readonly passId: string,
  ) {}

  private get dryRun(): boolean {
    return this.options.dryRun === true;
  }

  /** True once a bound has stopped the pass; checks the deadline as a side effect. */
  stopped(): boolean {
    if (this.stop.reason) return true;
    const { deadline } = this.budget;
    if (deadline !== undefined && this.clock.now() >= deadline) {
      this.stop.reason = `the pass deadline (${new Date(deadline).toISOString()}) was reached`;
      return true;
    }
    return false;
  }

  reserveWrite(): boolean {
    const { maxWrites } = this.budget;
    if (maxWrites !== undefined && this.writes >= maxWrites) {
      this.stop.reason ??= `the write budget of ${plural(maxWrites, 'write')} was spent`;
      return false;
    }
    this.writes += 1;
    return true;
  }

  private decide(
    action: DecisionAction,
    rule: KindRule,
    tenantRef: ObjectRef,
    hostRef: ObjectRef,
    reason: string,
    error?: unknown,
  ): void {
    const decision = {
      action,
      tenant: this.options.tenant,
      kind: rule.kind,
      apiVersion: rule.apiVersion,
      tenantRef,
      hostRef,
      reason,
      passId: this.passId,
      dryRun: this.dryRun,
      ...(error === undefined ? {} : { error: errorMessage(error) }),
    };
    this.recorder.record(decision);
    if (error !== undefined) this.objectError(rule, error, tenantRef, hostRef);
  }

  private objectError(rule: KindRule, error: unknown, tenantRef?: ObjectRef, hostRef?: ObjectRef) {
    const entry: ObjectError = { kind: rule.kind, message: errorMessage(error) };
    if (tenantRef) entry.tenantRef = tenantRef;
    if (hostRef) entry.hostRef = hostRef;
    const reason = clusterReason(error);
    if (reason) entry.reason = reason;
    this.errors.push(entry);
    this.backOffIfThrottled(error);
  }

  /**
   * An API server answering 429 is overloaded (API Priority and Fairness): on a shared host,
   * pressing on with more writes makes it worse for every tenant. The pass stops starting work,
   * as if a bound had been hit, and the next scheduled pass continues.
   */
  private backOffIfThrottled(error: unknown): void {
    if (!isClusterError(error, 'TooManyRequests')) return;
    const after =
      error.retryAfterSeconds === undefined ? '' : `, retry after ${error.retryAfterSeconds} s`;
    this.stop.reason ??= `an API server asked for less load (429 Too Many Requests${after}), so the pass stopped early`;
  }

  /** A kind's listing failed: one error naming the side, and no GC for that kind this pass. */
  private listingFailed(rule: KindRule, side: ClusterRole, error: unknown, why: string): void {
    this.errors.push({
      kind: rule.kind,
      message: `listing ${side} ${rule.kind} objects failed: ${errorMessage(error)}`,
      reason: clusterReason(error) ?? 'Unknown',
    });
    this.backOffIfThrottled(error);
    this.kindIncomplete(rule, why);
  }

  private kindIncomplete(rule: KindRule, why: string): void {
    this.incompleteKinds.push(`${rule.kind}: ${why}`);
  }

  /**
   * Lists every page of a kind in the host namespace: ALL objects, not only the managed ones, so a
   * name occupied by a foreign object or another tenant's copy is seen here and decided (Skip)
   * without a write. GC narrows the listing to this tenant's managed objects itself (`planGc`).
   */
  private async listHost(rule: KindRule): Promise<KubeObject[] | undefined> {
    const items: KubeObject[] = [];
    let continueToken: string | undefined;
    do {
      if (this.stopped()) return undefined;
      const page = await this.options.hostApi.list(rule, {
        namespace: this.policy.hostNamespace,
        limit: this.budget.pageSize,
        ...(continueToken ? { continueToken } : {}),
      });
      for (const object of page.items) items.push(compactHostObject(object));
      continueToken = page.continueToken;
    } while (continueToken);
    return items;
  }

  private async listTenantPage(rule: KindRule, continueToken: string | undefined) {
    this.tenantCalls += 1;
    const first = this.tenantCalls === 1;
    try {
      return await this.options.tenantApi.list(rule, {
        limit: this.budget.pageSize,
        ...(continueToken ? { continueToken } : {}),
      });
    } catch (error) {
      // Only the very first tenant request proves the cluster unreachable; later transport
      // failures are per-kind trouble the next pass retries.
      if (first && isClusterError(error, 'Transport')) {
        throw new ClusterUnreachableError('tenant' satisfies ClusterRole, { cause: error });
      }
      throw error;
    }
  }

  private async applyOne(
    rule: KindRule,
    desired: KubeObject,
    observed: KubeObject | undefined,
    source: SourceIdentity,
  ) {
    const tenantRef = { namespace: source.virtualNamespace, name: source.virtualName };
    const hostRef = { namespace: this.policy.hostNamespace, name: desired.metadata.name };
    let outcome: ApplyOutcome;
    try {
      outcome = await applyObject(
        {
          hostApi: this.options.hostApi,
          dryRun: this.dryRun,
          reserveWrite: () => this.reserveWrite(),
        },
        desired,
        observed,
        source,
      );
    } catch (error) {
      this.objectError(rule, error, tenantRef, hostRef);
      return;
    }
    if (outcome.action === 'InSync' || outcome.action === 'Deferred') return;
    this.decide(outcome.action, rule, tenantRef, hostRef, outcome.reason, outcome.error);
  }

  private async deleteOne(rule: KindRule, candidate: GcCandidate): Promise<void> {
    if (!this.reserveWrite()) return;
    const tenantRef = {
      namespace: candidate.ref.virtualNamespace,
      name: candidate.ref.virtualName,
    };
    const hostRef = {
      namespace: candidate.object.metadata.namespace ?? this.policy.hostNamespace,
      name: candidate.object.metadata.name,
    };
    let failure: unknown;
    if (!this.dryRun) {
      try {
        await deleteCandidate(this.options.hostApi, candidate);
      } catch (error) {
        failure = error;
      }
    }
    this.decide('Delete', rule, tenantRef, hostRef, candidate.reason, failure);
  }

  /** One kind: host listing, tenant listing page by page with applies, then GC if complete. */
  async runKind(compiled: CompiledKindRule): Promise<void> {
    const { rule } = compiled;
    const { tenant, onProgress } = this.options;
    this.objectsSeen[rule.kind] ??= 0;
    let hostObjects: KubeObject[] | undefined;
    try {
      hostObjects = await this.listHost(rule);
    } catch (error) {
      this.listingFailed(rule, 'host', error, 'the host listing failed');
      return;
    }
    if (!hostObjects) return;
    const byName = new Map(hostObjects.map((o) => [o.metadata.name, o]));
    const desiredKeys = new Set<string>();
    const listedKeys = new Set<string>();
    let listed = 0;
    const writesBefore = this.writes;
    let listingComplete = false;
    let continueToken: string | undefined;
    let reportedClusterScoped = false;
    for (;;) {
      if (this.stopped()) break;
      let page: Awaited<ReturnType<Pass['listTenantPage']>>;
      try {
        page = await this.listTenantPage(rule, continueToken);
      } catch (error) {
        if (error instanceof PassError) throw error;
        this.listingFailed(
          rule,
          'tenant',
          error,
          'the tenant listing failed, so its garbage collection was skipped',
        );
        break;
      }
      const work: Array<{ desired: KubeObject; source: SourceIdentity }> = [];
      for (const object of page.items) {
        listed += 1;
        this.objectsSeen[rule.kind] = (this.objectsSeen[rule.kind] ?? 0) + 1;
        const name = object?.metadata?.name;
        const namespace = object?.metadata?.namespace;
        if (typeof name !== 'string' || name === '') {
          this.objectError(rule, new Error('a tenant object without a name was ignored'));
          continue;
        }
        if (typeof namespace !== 'string' || namespace === '') {
          if (!reportedClusterScoped) {
            reportedClusterScoped = true;
            this.objectError(
              rule,
              new Error(
                `${rule.kind} objects without a namespace cannot be synced; only namespaced kinds can`,
              ),
            );
          }
          continue;
        }
        const key = sourceKey(namespace, name);
        listedKeys.add(key);
        if (isExcluded(compiled, object)) continue;
        desiredKeys.add(key);
        try {
          const desired = toHostObject(object, {
            tenant,
            hostNamespace: this.policy.hostNamespace,
          });
          work.push({
            desired,
            source: { tenant, kind: rule.kind, virtualNamespace: namespace, virtualName: name },
          });
        } catch (error) {
          this.objectError(rule, error, { namespace, name });
        }
      }
      await runPool(
        work,
        this.budget.concurrency,
        ({ desired, source }) =>
          this.applyOne(rule, desired, byName.get(desired.metadata.name), source),
        () => this.stopped(),
      );
      onProgress?.({ kind: rule.kind, listed, written: this.writes - writesBefore });
      continueToken = page.continueToken;
      if (this.stop.reason) break;
      if (!continueToken) {
        listingComplete = true;
        break;
      }
    }
    if (!listingComplete || this.stopped()) {
      if (this.stop.reason)
        this.kindIncomplete(
          rule,
          'stopped before it finished, so its garbage collection was skipped',
        );
      return;
    }
    const candidates = planGc(hostObjects, {
      tenant,
      kind: rule.kind,
      desired: desiredKeys,
      listed: listedKeys,
    });
    await runPool(
      candidates,
      this.budget.concurrency,
      (c) => this.deleteOne(rule, c),
      () => this.stopped(),
    );
    if (candidates.length > 0) {
      onProgress?.({ kind: rule.kind, listed, written: this.writes - writesBefore });
    }
    if (this.stop.reason) this.kindIncomplete(rule, 'stopped during garbage collection');
  }
}

/** The budget with defaults filled in (an explicit `undefined` means the default too). */
function effectiveBudget(partial: Partial<Budget> = {}): Budget {
  const positive = (value: number | undefined, fallback: number) =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(1, Math.floor(value));
  const budget: Budget = {
    pageSize: positive(partial.pageSize, DEFAULT_BUDGET.pageSize),
    concurrency: positive(partial.concurrency, DEFAULT_BUDGET.concurrency),
  };
  if (partial.deadline !== undefined) budget.deadline = partial.deadline;
  if (partial.maxWrites !== undefined)
    budget.maxWrites = Math.max(0, Math.floor(partial.maxWrites));
  return budget;
}

/** Reads the TenantCluster; its absence and an unreachable host are pass-level failures. */
async function readTenantCluster(hostApi: ClusterApi, tenant: string): Promise<KubeObject> {
  let object: KubeObject | undefined;
  try {
    object = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
  } catch (error) {
    if (isClusterError(error, 'Transport'))
      throw new ClusterUnreachableError('host', { cause: error });
    if (isClusterError(error, 'NotFound'))
      throw new TenantClusterNotFoundError(tenant, { cause: error });
    throw new PassError(`could not read TenantCluster "${tenant}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!object) throw new TenantClusterNotFoundError(tenant);
  return object;
}

/** The `status.lastPass` object of the TenantCluster CRD for a result. */
export function lastPassStatus(result: PassResult): Record<string, unknown> {
  return {
    passId: result.passId,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    complete: result.complete,
    // null removes a reason left by an earlier incomplete pass (JSON merge patch).
    incompleteReason: result.incompleteReason ?? null,
    counts: { ...result.counts },
    errorCount: result.errors.length,
    errors: result.errors.slice(0, STATUS_ERRORS).map(formatObjectError),
  };
}

/** The parts of `status.lastPass` that say whether the pass was in trouble. */
function troubleOf(lastPass: Record<string, unknown>): string {
  const { complete, incompleteReason, errorCount, errors } = lastPass;
  return stableJson([complete, incompleteReason ?? null, errorCount ?? 0, errors ?? []]);
}

/**
 * Whether this pass must write `status.lastPass`. A pass that decided anything, or whose trouble
 * (incomplete, errors) differs from the recorded pass's, always reports. A clean pass that
 * changed nothing leaves the recorded pass in place until it is older than `intervalMs`, so
 * `status.lastPass` is the latest pass that acted, failed or recovered, refreshed at least every
 * interval.
 */
export function statusReportDue(
  recorded: unknown,
  next: Record<string, unknown>,
  nowMs: number,
  intervalMs: number = DEFAULT_STATUS_REPORT_INTERVAL_MS,
): boolean {
  if (recorded === null || typeof recorded !== 'object') return true;
  const previous = recorded as Record<string, unknown>;
  const counts = (next.counts ?? {}) as Record<string, number>;
  if (Object.values(counts).some((n) => n > 0)) return true;
  if (troubleOf(previous) !== troubleOf(next)) return true;
  const finishedAt = Date.parse(String(previous.finishedAt));
  return !Number.isFinite(finishedAt) || nowMs - finishedAt >= intervalMs;
}

/**
 * Runs one bounded convergence pass for `tenant`: reads its TenantCluster from the host, parses
 * the SyncPolicy, converges every `toHost` kind in order, then (unless dry run) writes
 * `status.lastPass` (when the pass acted, failed or recovered, or the recorded pass is older
 * than the status report interval; see {@link statusReportDue}), and finally hands the result to every sink's `passFinished`.
 *
 * Per-object and per-kind failures (a rejected write, a kind whose listing is forbidden or not
 * installed) are aggregated into `errors`; a failed or truncated listing makes the pass
 * incomplete and skips that kind's GC. When a bound stops the pass, no new work starts, writes
 * in flight finish, and `incompleteReason` says why; the next pass picks up the rest.
 *
 * `requests` counts the pass's own requests; the status write is not included (`statusWritten`
 * says whether it happened), so a steady-state pass reports zero writes and makes none.
 *
 * @throws TenantClusterNotFoundError, InvalidPolicyError, ClusterUnreachableError (the first
 * request to a cluster failed at the transport level), or PassError (the TenantCluster could not
 * be read); each with `cause`.
 */
export async function runPass(options: PassOptions): Promise<PassResult> {
  const clock = options.clock ?? systemClock;
  const { tenant, tenantApi, hostApi } = options;
  const dryRun = options.dryRun === true;
  const passId = options.passId ?? randomUUID();
  const budget = effectiveBudget(options.budget);
  const startedAtMs = clock.now();
  const tenantBefore = tenantApi.requestCount();
  const hostBefore = hostApi.requestCount();
  const recorder = new DecisionRecorder(options.sinks ?? []);

  const tenantCluster = await readTenantCluster(hostApi, tenant);
  const policy = parseSyncPolicy(tenant, tenantCluster.spec);

  const pass = new Pass(options, policy, budget, clock, recorder, passId);
  let note: string | undefined;
  if (policy.paused) {
    note = 'the sync policy is paused; nothing was synced';
  } else {
    for (const rule of policy.toHost) {
      if (pass.stopped()) break;
      await pass.runKind(compileKindRule(rule));
    }
  }

  const finishedAtMs = clock.now();
  const notStarted = pass.stop.reason
    ? policy.toHost.filter((r) => !(r.kind in pass.objectsSeen)).map((r) => r.kind)
    : [];
  const reasons: string[] = [];
  if (pass.stop.reason) reasons.push(`${pass.stop.reason}; the next pass continues`);
  reasons.push(...pass.incompleteKinds);
  if (notStarted.length > 0) reasons.push(`not started: ${notStarted.join(', ')}`);
  const complete = reasons.length === 0;
  const result: PassResult = {
    passId,
    tenant,
    dryRun,
    startedAt: new Date(startedAtMs).toISOString(),
    finishedAt: new Date(finishedAtMs).toISOString(),
    durationMs: Math.max(0, finishedAtMs - startedAtMs),
    complete,
    counts: { ...emptyCounts(), ...recorder.counts },
    objectsSeen: pass.objectsSeen,
    errors: pass.errors,
    requests: {
      tenant: requestDelta(tenantApi.requestCount(), tenantBefore),
      host: requestDelta(hostApi.requestCount(), hostBefore),
    },
    decisions: recorder.decisions,
  };
  if (!complete) result.incompleteReason = reasons.join('; ');
  if (note) result.note = note;
  if (tenantCluster.metadata.uid) result.tenantClusterUid = tenantCluster.metadata.uid;

  result.statusWritten = false;
  const lastPass = lastPassStatus(result);
  const recorded = (tenantCluster.status as { lastPass?: unknown } | undefined)?.lastPass;
  const due = statusReportDue(recorded, lastPass, finishedAtMs, options.statusReportIntervalMs);
  if (!dryRun && !policy.paused && due) {
    try {
      await hostApi.patchStatus(TENANT_CLUSTER, undefined, tenant, { lastPass });
      result.statusWritten = true;
    } catch (error) {
      result.errors.push({
        kind: TENANT_CLUSTER.kind,
        message: `could not write status.lastPass: ${errorMessage(error)}`,
        ...(clusterReason(error) ? { reason: clusterReason(error) as string } : {}),
      });
    }
  }
  await recorder.finish(result);
  return result;
}
