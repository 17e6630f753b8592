/**
 * Pass-level failures: the errors that abort a whole pass (as opposed to per-object and per-kind
 * failures, which are aggregated into `PassResult.errors`). Each carries the underlying `cause`.
 */
import type { ClusterRole } from '../ports/index.js';

/** Base of every error that aborts a pass. */
export class PassError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PassError';
  }
}

/** The host has no `TenantCluster` of that name, so there is no policy to execute. */
export class TenantClusterNotFoundError extends PassError {
  readonly tenant: string;

  constructor(tenant: string, options?: { cause?: unknown }) {
    super(`TenantCluster "${tenant}" does not exist on the host cluster`, options);
    this.name = 'TenantClusterNotFoundError';
    this.tenant = tenant;
  }
}

/** The TenantCluster spec is not a valid SyncPolicy; `problems` lists every problem found. */
export class InvalidPolicyError extends PassError {
  readonly tenant: string;
  readonly problems: readonly string[];

  constructor(tenant: string, problems: readonly string[], options?: { cause?: unknown }) {
    super(`TenantCluster "${tenant}" has an invalid sync policy: ${problems.join('; ')}`, options);
    this.name = 'InvalidPolicyError';
    this.tenant = tenant;
    this.problems = problems;
  }
}

/** The first request to a cluster failed at the transport level (no answer at all). */
export class ClusterUnreachableError extends PassError {
  readonly role: ClusterRole;

  constructor(role: ClusterRole, options?: { cause?: unknown }) {
    const detail = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(`the ${role} cluster is unreachable${detail}`, options);
    this.name = 'ClusterUnreachableError';
    this.role = role;
  }
}

/**
 * The tenant kubeconfig now reaches a different tenant cluster than the one this TenantCluster
 * synced before (a secret rotated to the wrong value, a cluster rebuilt behind the same endpoint).
 * Syncing it would delete every copy whose source this cluster lacks and create its objects under
 * this tenant's labels, so the pass writes nothing until an operator accepts the new cluster.
 */
export class TenantClusterChangedError extends PassError {
  readonly tenant: string;
  readonly recordedId: string;
  readonly observedId: string;

  constructor(tenant: string, recordedId: string, observedId: string) {
    super(
      `TenantCluster "${tenant}" was synced from tenant cluster ${recordedId} (uid of its kube-system namespace), but its kubeconfig now reaches ${observedId}; nothing was written. If the new cluster is the right one, accept it with: kubectl annotate tenantcluster ${tenant} tenantplane.io/accept-tenant-cluster-id=${observedId} --overwrite`,
    );
    this.name = 'TenantClusterChangedError';
    this.tenant = tenant;
    this.recordedId = recordedId;
    this.observedId = observedId;
  }
}

/**
 * The tenant kubeconfig reaches the host cluster itself (a host kubeconfig pasted as the tenant's):
 * a pass would copy every host object it can read, other tenants' copies included, into this
 * tenant's host namespace, and copy the copies at the next pass. The pass writes nothing.
 */
export class TenantClusterIsHostError extends PassError {
  readonly tenant: string;
  /** What shows that the tenant cluster is the host. */
  readonly evidence: string;

  constructor(tenant: string, evidence: string) {
    super(
      `TenantCluster "${tenant}": the tenant kubeconfig reaches the host cluster (${evidence}); nothing was written. Give the tenant the kubeconfig of its own tenant cluster.`,
    );
    this.name = 'TenantClusterIsHostError';
    this.tenant = tenant;
    this.evidence = evidence;
  }
}

/** What a step's request came to: its answer, or the failure that is the step's to decide on. */
export type Attempted<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Sends one request of a step and contains its failure. A pass-level failure (a
 * {@link PassError}: another pass holds the tenant's lease, a cluster stopped answering) aborts
 * the pass, so it goes on up; any other failure is returned for the step to decide on (an error of
 * that object, a Skip, or nothing for a NotFound or Conflict that the next pass reads anew). The one
 * place a step's request failure is told from a pass's.
 */
export async function attempt<T>(send: () => Promise<T>): Promise<Attempted<T>> {
  try {
    return { ok: true, value: await send() };
  } catch (error) {
    if (error instanceof PassError) throw error;
    return { ok: false, error };
  }
}
