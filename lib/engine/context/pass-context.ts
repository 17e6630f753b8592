/**
 * What every step of a pass shares: the tenant and where its copies go, both clusters, the
 * budget, the error aggregate and the Decision recorder. One object, so the steps stay functions.
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
import { TenantLister } from '../listing/tenant-listing.js';
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

/** The state one pass threads through its steps. */
export interface PassContext {
  tenant: string;
  passId: string;
  hostNamespace: string;
  hostApi: ClusterApi;
  tenantLister: TenantLister;
  /** Compute and report every Decision, write nothing. */
  dryRun: boolean;
  bounds: PassBounds;
  errors: ObjectErrors;
  recorder: DecisionRecorder;
  /** Kinds the pass started, so an incomplete pass can say which it never reached. */
  kindsStarted: Set<string>;
  /** Tenant objects seen, per kind started. */
  objectsSeen: Record<string, number>;
  onProgress: ((progress: PassProgress) => void) | undefined;
  /** Host copies found terminating (held by a host finalizer): left alone, counted. */
  terminating: { count: number };
  /** What the operator must act on (one Warning Event each). */
  warnings: PassWarning[];
  /** The mass-delete guard of the policy, and the one-shot confirmations on the TenantCluster. */
  deleteGuard: DeleteGuardPolicy;
  confirmedDeletes: ReadonlySet<string>;
  /**
   * Writes to the TenantCluster itself (finalizer, remembered kinds and namespaces): bookkeeping,
   * kept out of `requests` like the status report, so `requests` is what the sync cost.
   */
  bookkeeping: { writes: number };
  /** Retry memory and the kinds sharing the write budget (`convergence.ts`); absent in bare tests. */
  convergence?: Convergence;
  /** Re-reads the policy before GC; says why GC must wait when it changed (see lifecycle.ts). */
  recheckPolicy: () => Promise<string | undefined>;
  /** Resume points: which path each kind takes, what the next pass resumes from (`resume-point.ts`). */
  resume: ResumeBook;
}

/**
 * Records a Decision. One whose write failed (`error`) stands as decided and is also an error of
 * the pass, so the failure is explained where the action is.
 */
export function decide(
  ctx: PassContext,
  action: DecisionAction,
  rule: KindRef,
  refs: { tenantRef: ObjectRef; hostRef: ObjectRef },
  reason: string,
  error?: unknown,
  alreadyGone = false,
): void {
  ctx.recorder.record({
    action,
    tenant: ctx.tenant,
    kind: rule.kind,
    apiVersion: rule.apiVersion,
    tenantRef: refs.tenantRef,
    hostRef: refs.hostRef,
    reason,
    passId: ctx.passId,
    dryRun: ctx.dryRun,
    ...(error === undefined ? {} : { error: errorText(rule, error) }),
    ...(alreadyGone ? { alreadyGone: true } : {}),
  });
  if (error !== undefined) ctx.errors.add(rule, error, refs.tenantRef, refs.hostRef);
}

/** What a pass knows when it builds its context. */
export interface PassContextInputs {
  tenant: string;
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
  passId?: string;
  dryRun: boolean;
  bounds: PassBounds;
  sinks?: DecisionSink[];
  onProgress?: (progress: PassProgress) => void;
  tenantCluster: KubeObject;
  policy: SyncPolicy;
  /** Dates the retry memory (default: the system clock). */
  clock?: Clock;
  /** List every kind in full on both sides, whatever resume points are stored. */
  full?: boolean;
  /** Resumed passes where a resume point allows (`incremental.ts`); `false` lists every kind in full. */
  incremental?: boolean;
}

/** The context of a new pass, with nothing spent or decided yet. */
export function newPassContext(inputs: PassContextInputs): PassContext {
  const { tenant, hostApi, bounds, policy, tenantCluster } = inputs;
  const passId = inputs.passId ?? randomUUID();
  // With fewer writes than kinds, which kinds get one this pass: a different window each pass.
  bounds.rotateTurns(
    Number.parseInt(createHash('sha256').update(passId).digest('hex').slice(0, 8), 16),
  );
  const tenantLister = new TenantLister(inputs.tenantApi, bounds.budget.pageSize);
  const clock = inputs.clock ?? systemClock;
  return {
    tenant,
    passId,
    hostNamespace: policy.hostNamespace,
    hostApi,
    tenantLister,
    dryRun: inputs.dryRun,
    bounds,
    errors: new ObjectErrors(bounds),
    recorder: new DecisionRecorder(inputs.sinks ?? []),
    kindsStarted: new Set(),
    objectsSeen: {},
    onProgress: inputs.onProgress,
    terminating: { count: 0 },
    warnings: [],
    deleteGuard: policy.deleteGuard ?? DEFAULT_DELETE_GUARD,
    confirmedDeletes: confirmedTokens(tenantCluster.metadata.annotations),
    recheckPolicy: policyRecheck(hostApi, tenant, policy),
    bookkeeping: { writes: 0 },
    convergence: newConvergence(tenantCluster.status, policy.toHost, clock),
    resume: new ResumeBook(tenantCluster, policy.hostNamespace, {
      full: inputs.full === true,
      incremental: inputs.incremental !== false,
      canWatch: tenantLister.canWatch,
      nowMs: () => clock.now(),
    }),
  };
}
