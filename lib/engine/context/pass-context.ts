/**
 * What the steps of a pass share, in three parts so each step takes what it uses:
 * - the {@link PassScope}: read-only facts of the pass (tenant, pass id, host namespace, clients,
 *   policy, clock, bounds);
 * - the {@link Ledger}: what the pass has done so far (Decisions, object errors, counts,
 *   warnings, terminating copies, bookkeeping writes), changed only through its methods;
 * - the {@link PassMemory}: what crosses passes (the retry memory, the resume points, the
 *   one-shot delete confirmations, the policy re-read before GC).
 */

import { createHash, randomUUID } from 'node:crypto';
import {
  type Clock,
  type ClusterApi,
  type DecisionAction,
  type DecisionSink,
  type KindRef,
  type KubeObject,
  type ObjectRef,
  type PassWarning,
  systemClock,
} from '../../ports/index.js';
import type { PassBounds } from '../bounds/budget.js';
import type { TenantLister } from '../listing/tenant-listing.js';
import { resourceKey } from '../names/resource-key.js';
import { DEFAULT_DELETE_GUARD, type DeleteGuardPolicy, type SyncPolicy } from '../policy/policy.js';
import { policyRecheck } from '../tenant/lifecycle.js';
import { ResumeBook } from '../tenant/resume-point.js';
import { confirmedTokens } from '../tenant/tenant-cluster.js';
import { type Convergence, newConvergence } from './convergence.js';
import { DecisionRecorder } from './decisions.js';
import { errorText } from './error-text.js';
import { ObjectErrors } from './object-errors.js';

/** Progress after each page of a kind. */
export interface PassProgress {
  kind: string;
  /** Tenant objects of this kind listed so far. */
  listed: number;
  /** Writes started for this kind so far (dry runs count would-be writes). */
  written: number;
}

/** The read-only facts of one pass. */
export interface PassScope {
  readonly tenant: string;
  readonly passId: string;
  readonly hostNamespace: string;
  /** The host client; in a dry run it answers writes without sending them (`dry-run.ts`). */
  readonly hostApi: ClusterApi;
  readonly tenantLister: TenantLister;
  /** Whether this pass is a dry run: recorded on its Decisions, never a switch in a step. */
  readonly dryRun: boolean;
  readonly bounds: PassBounds;
  readonly policy: SyncPolicy;
  /** The mass-delete guard of the policy (its default when the policy names none). */
  readonly deleteGuard: DeleteGuardPolicy;
  readonly clock: Clock;
}

/** One Decision as a step states it; the ledger adds who decided it and when. */
export interface DecisionInput {
  action: DecisionAction;
  rule: KindRef;
  tenantRef: ObjectRef;
  hostRef: ObjectRef;
  reason: string;
  /** The write failed: the Decision stands as decided and is also an error of the pass. */
  error?: unknown;
  /** A delete that found its object gone already. */
  alreadyGone?: boolean;
}

/** What the pass has done so far; every change goes through a method. */
export class Ledger {
  readonly recorder: DecisionRecorder;
  readonly errors: ObjectErrors;
  private readonly started = new Set<string>();
  private readonly seen: Record<string, number> = {};
  private readonly warned: PassWarning[] = [];
  /** Terminating copies, by apiVersion, kind, namespace and name: each counted once. */
  private readonly terminatingCopies = new Set<string>();
  /** Of them, the copies a tenant object still wants (see {@link countTerminating}). */
  private readonly wantedTerminating = new Set<string>();
  private bookkeepingWrites = 0;

  constructor(
    private readonly identity: { tenant: string; passId: string; dryRun: boolean },
    bounds: PassBounds,
    sinks: readonly DecisionSink[],
    /** Hears how far each kind has come. */
    public onProgress?: (progress: PassProgress) => void,
  ) {
    this.recorder = new DecisionRecorder(sinks);
    this.errors = new ObjectErrors(bounds);
  }

  /** Records a Decision; one whose write failed is also an error of the pass. */
  decide(input: DecisionInput): void {
    const { action, rule, tenantRef, hostRef, reason, error, alreadyGone } = input;
    this.recorder.record({
      action,
      tenant: this.identity.tenant,
      kind: rule.kind,
      apiVersion: rule.apiVersion,
      tenantRef,
      hostRef,
      reason,
      passId: this.identity.passId,
      dryRun: this.identity.dryRun,
      ...(error === undefined ? {} : { error: errorText(rule, error) }),
      ...(alreadyGone === true ? { alreadyGone: true } : {}),
    });
    if (error !== undefined) this.errors.add(rule, error, tenantRef, hostRef);
  }

  /** A Decision a full pass of the same state would make again (see `DecisionRecorder.unsettled`). */
  unsettle(): void {
    this.recorder.unsettled += 1;
  }

  /** A kind's work began (so an incomplete pass can say which kinds it never reached). */
  startKind(rule: KindRef): void {
    this.started.add(resourceKey(rule));
    this.seen[rule.kind] ??= 0;
  }

  /** How many kinds' work began in this pass. */
  get kindsStarted(): number {
    return this.started.size;
  }

  /** Whether the kind's work began in this pass. */
  hasStarted(rule: KindRef): boolean {
    return this.started.has(resourceKey(rule));
  }

  /** One tenant object of `kind` was listed. */
  sawObject(kind: string): void {
    this.seen[kind] = (this.seen[kind] ?? 0) + 1;
  }

  /** Tenant objects seen, per kind started. */
  get objectsSeen(): Record<string, number> {
    return this.seen;
  }

  /**
   * A host copy found terminating (held by a host finalizer): left alone, counted once however
   * many paths meet it (apply and GC both do). `wanted`: a tenant object still wants it, so it
   * must be created anew once the host lets it go; its kind then keeps no resume point
   * ({@link terminatingWanted}), and the next pass is full.
   */
  countTerminating(copy: KubeObject, wanted?: 'wanted'): void {
    const { namespace, name } = copy.metadata;
    const key = `${copy.apiVersion}/${copy.kind}/${namespace ?? ''}/${name}`;
    this.terminatingCopies.add(key);
    if (wanted) this.wantedTerminating.add(key);
  }

  get terminating(): number {
    return this.terminatingCopies.size;
  }

  /** Terminating copies a tenant object still wants; only grows during a pass. */
  get terminatingWanted(): number {
    return this.wantedTerminating.size;
  }

  /** Something the operator must act on (one Warning Event each). */
  warn(warning: PassWarning): void {
    this.warned.push(warning);
  }

  get warnings(): readonly PassWarning[] {
    return this.warned;
  }

  /**
   * A write to the TenantCluster itself (finalizer, remembered kinds and namespaces): kept out of
   * `requests` like the status report, so `requests` is what the sync cost.
   */
  bookkept(): void {
    // A dry run's client answers writes without sending them: nothing to keep out of `requests`.
    if (!this.identity.dryRun) this.bookkeepingWrites += 1;
  }

  get bookkeeping(): number {
    return this.bookkeepingWrites;
  }

  /** Tells the caller how far a kind has come. */
  progress(progress: PassProgress): void {
    this.onProgress?.(progress);
  }
}

/** What crosses passes: read from the TenantCluster at the start, written back at the end. */
export interface PassMemory {
  /** Retry memory and the kinds sharing the write budget (`convergence.ts`); absent in bare tests. */
  convergence?: Convergence;
  /** Resume points: which path each kind takes, what the next pass resumes from. */
  readonly resume: ResumeBook;
  /** The one-shot confirmations of held deletions on the TenantCluster. */
  readonly confirmedDeletes: ReadonlySet<string>;
  /** Re-reads the policy before GC; says why GC must wait when it changed (see lifecycle.ts). */
  readonly recheckPolicy: () => Promise<string | undefined>;
}

/** The state one pass threads through its steps. */
export interface PassContext {
  readonly scope: PassScope;
  readonly ledger: Ledger;
  readonly memory: PassMemory;
}

/** What a pass knows when it builds its context. */
export interface PassContextInputs {
  tenant: string;
  hostApi: ClusterApi;
  tenantLister: TenantLister;
  passId?: string;
  dryRun: boolean;
  bounds: PassBounds;
  sinks?: readonly DecisionSink[];
  onProgress?: (progress: PassProgress) => void;
  tenantCluster: KubeObject;
  policy: SyncPolicy;
  /** Dates the retry memory (default: the system clock). */
  clock?: Clock;
  /** Which path the kinds take: resumed where a resume point allows, or every kind in full. */
  path?: PassPath;
}

/**
 * How a pass lists: `auto` resumes each kind from its stored point where it can (and keeps
 * points for the next pass); `full` lists every kind in full on both sides (`--full`);
 * `full-only` also keeps no resume point (incremental passes off).
 */
export type PassPath = 'auto' | 'full' | 'full-only';

/** The context of a new pass, with nothing spent or decided yet. */
export function newPassContext(inputs: PassContextInputs): PassContext {
  const { tenant, hostApi, bounds, policy, tenantCluster, tenantLister } = inputs;
  const passId = inputs.passId ?? randomUUID();
  // With fewer writes than kinds, which kinds get one this pass: a different window each pass.
  bounds.rotateTurns(
    Number.parseInt(createHash('sha256').update(passId).digest('hex').slice(0, 8), 16),
  );
  const clock = inputs.clock ?? systemClock;
  const path = inputs.path ?? 'auto';
  const scope: PassScope = {
    tenant,
    passId,
    hostNamespace: policy.hostNamespace,
    hostApi,
    tenantLister,
    dryRun: inputs.dryRun,
    bounds,
    policy,
    deleteGuard: policy.deleteGuard ?? DEFAULT_DELETE_GUARD,
    clock,
  };
  const ledger = new Ledger(
    { tenant, passId, dryRun: inputs.dryRun },
    bounds,
    inputs.sinks ?? [],
    inputs.onProgress,
  );
  const memory: PassMemory = {
    confirmedDeletes: confirmedTokens(tenantCluster.metadata.annotations),
    recheckPolicy: policyRecheck(hostApi, tenant, policy),
    convergence: newConvergence(tenantCluster.status, policy.toHost, clock),
    resume: new ResumeBook(tenantCluster, policy.hostNamespace, {
      full: path !== 'auto',
      incremental: path !== 'full-only',
      canWatch: tenantLister.canWatch,
      nowMs: () => clock.now(),
    }),
  };
  return { scope, ledger, memory };
}
