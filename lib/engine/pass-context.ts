/**
 * What every step of a pass shares: the tenant and where its copies go, both clusters, the
 * budget, the error aggregate and the Decision recorder. One object, so the steps stay functions.
 */
import { errorMessage } from '../common/index.js';
import type { ClusterApi, DecisionAction, ObjectRef } from '../ports/index.js';
import type { PassBounds } from './budget.js';
import type { DecisionRecorder } from './decisions.js';
import type { ObjectErrors } from './object-errors.js';
import type { KindRule } from './policy.js';
import type { TenantLister } from './tenant-listing.js';

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
}

/**
 * Records a Decision. One whose write failed (`error`) stands as decided and is also an error of
 * the pass, so the failure is explained where the action is.
 */
export function decide(
  ctx: PassContext,
  action: DecisionAction,
  rule: KindRule,
  refs: { tenantRef: ObjectRef; hostRef: ObjectRef },
  reason: string,
  error?: unknown,
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
    ...(error === undefined ? {} : { error: errorMessage(error) }),
  });
  if (error !== undefined) ctx.errors.add(rule, error, refs.tenantRef, refs.hostRef);
}
