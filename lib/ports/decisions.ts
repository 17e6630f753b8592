/**
 * Decisions: the explainable record of every action a pass takes, and the sink port that
 * delivers them (Kubernetes Events, structured logs, CLI output).
 */
export const DecisionAction = {
  Create: 'Create',
  Update: 'Update',
  Delete: 'Delete',
  Skip: 'Skip',
} as const;
export type DecisionAction = (typeof DecisionAction)[keyof typeof DecisionAction];

export interface ObjectRef {
  namespace: string;
  name: string;
}

export interface Decision {
  action: DecisionAction;
  tenant: string;
  /** The Kind, e.g. `ConfigMap`. */
  kind: string;
  apiVersion: string;
  /** The tenant object (virtual namespace and name). */
  tenantRef: ObjectRef;
  /** The host object (host namespace and host name). */
  hostRef: ObjectRef;
  /** Human-readable why. */
  reason: string;
  passId: string;
  dryRun: boolean;
  /** Set when the action was attempted and failed (the decision stands, the write did not). */
  error?: string;
  /** A Delete that found the host object gone already: nothing was deleted by this pass. */
  alreadyGone?: boolean;
}

export type DecisionCounts = Record<DecisionAction, number>;

/** A per-object failure that did not abort the pass. */
export interface ObjectError {
  kind: string;
  tenantRef?: ObjectRef;
  hostRef?: ObjectRef;
  message: string;
  /** ClusterErrorReason when it came from the API. */
  reason?: string;
}

export interface PassResult {
  passId: string;
  tenant: string;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** False when a bound (deadline, write budget) or a failed listing left work for the next pass. */
  complete: boolean;
  /** Why the pass is incomplete, in plain words. */
  incompleteReason?: string;
  /** Something an operator should know about a pass that is not an error, e.g. a paused policy. */
  note?: string;
  /** Decisions carried out, per action: failed ones and already-gone deletes are not in here. */
  counts: DecisionCounts;
  /** Decisions whose write failed, per action (counted apart from `counts`). */
  failed?: DecisionCounts;
  /** Deletes that found their host object already gone (counted apart from `counts.Delete`). */
  alreadyGone?: number;
  /** Tenant objects seen, per kind. */
  objectsSeen: Record<string, number>;
  errors: ObjectError[];
  requests: { tenant: { reads: number; writes: number }; host: { reads: number; writes: number } };
  decisions: Decision[];
  /** Whether the pass wrote `status.lastPass` (unchanged steady passes skip it; see the engine). */
  statusWritten?: boolean;
  /** Host copies found already terminating (held by a host finalizer): neither deleted again nor decided. */
  terminating?: number;
  /** Things an operator must act on, each written as one Warning Event (e.g. a stopped mass delete). */
  warnings?: PassWarning[];
  /** Set while a deleted TenantCluster waits for its host copies to be removed. */
  cleanup?: { copiesLeft: number };
  /**
   * Set when another pass held the tenant's lease: this pass wrote nothing (no copies, status or
   * Events); who holds it (`<namespace>/<name>` of the Lease, holder, since, expires).
   */
  leaseHeld?: { lease: string; holder: string; since: string; expires: string };
  /** uid of the TenantCluster the pass read, so sinks that refer to it need not read it again. */
  tenantClusterUid?: string;
  /** `metadata.generation` of the TenantCluster the pass read (`status.observedGeneration`). */
  tenantClusterGeneration?: number;
  /**
   * Which path the pass took: `resumed` (every kind read only its changes from a resumed watch),
   * `full` (a kind listed both sides in full: asked for, nothing to resume from, or a fallback),
   * `resync` (the periodic full two-sided pass).
   */
  path?: PassPath;
  /** Why a kind did not resume (`<kind>: <reason>; ...`), a failed resume included. */
  pathReason?: string;
  /**
   * Set when an API server answered a request of the pass 429 Too Many Requests: `retried`
   * requests were sent again after waiting as its `Retry-After` asked (`waitedMs` in all, per
   * cluster, overlaps once); `notBefore` (RFC 3339), when a wait did not fit the pass: the work
   * left is the next pass's, and the server asked for nothing sooner.
   */
  throttled?: { retried: number; waitedMs: number; notBefore?: string };
}

/** How a pass synced its kinds (see {@link PassResult.path}). */
export type PassPath = 'resumed' | 'full' | 'resync';

/** Something a pass stopped short of, that only an operator can resolve. */
export interface PassWarning {
  /** CamelCase, as an Event reason, e.g. `MassDeleteGuard`. */
  reason: string;
  message: string;
}

/**
 * Where Decisions go. `decision` is called as each is made (logs stream); `passFinished` once at
 * the end (Events are written then, with flood control). A sink never throws into the pass.
 */
export interface DecisionSink {
  decision(decision: Decision): void;
  passFinished(result: PassResult): Promise<void>;
}
