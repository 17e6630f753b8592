/**
 * A follow writes only under the tenant's lease, and holds it from its start to its end: it must
 * be able to take it (create, or get and update an expired one), renew it (update) and release it
 * (delete). Unlike a single pass, which goes on unprotected and warns when the server refuses the
 * lease, a follow that may not write the lease would run for hours beside the scheduled passes
 * with nothing keeping them apart: it refuses to start, naming the missing grant. Asked with a
 * `SelfSubjectAccessReview` per verb (what `kubectl auth can-i` sends), before the lease is taken.
 */
import type { ClusterApi, KubeObject } from '../../ports/index.js';
import { PassError } from '../errors.js';
import { leaseName } from '../tenant/tenant-lease.js';

/** The verbs a follow needs on its Lease, in the order an operator grants them. */
export const LEASE_VERBS = ['get', 'create', 'update', 'delete'] as const;

const ACCESS_REVIEW = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' };

/** What a follow's identity needs to be granted, in an operator's words. */
function grantNeeded(namespace: string): string {
  return `grant the verbs ${LEASE_VERBS.join(', ')} on leases (API group coordination.k8s.io) in namespace ${namespace} to the identity the follow runs as (the tenantplane Role of deploy/rbac has them)`;
}

/** The follow may not write the tenant's lease: it did not start. */
export class LeaseGrantMissingError extends PassError {
  constructor(
    readonly namespace: string,
    /** The verbs the host denied; empty when the lease was refused for another reason. */
    readonly verbs: readonly string[],
    message: string,
  ) {
    super(message);
    this.name = 'LeaseGrantMissingError';
  }
}

/**
 * The verbs of {@link LEASE_VERBS} the host refuses this client on the tenant's Lease in
 * `namespace`; `undefined` when the host cannot say (no access reviews served or allowed): the
 * follow then learns it by taking the lease.
 */
export async function missingLeaseVerbs(
  hostApi: ClusterApi,
  tenant: string,
  namespace: string,
): Promise<string[] | undefined> {
  const missing: string[] = [];
  for (const verb of LEASE_VERBS) {
    let review: KubeObject;
    try {
      review = await hostApi.create({
        ...ACCESS_REVIEW,
        metadata: { name: '' },
        spec: {
          resourceAttributes: {
            group: 'coordination.k8s.io',
            resource: 'leases',
            verb,
            namespace,
            // `create` is decided before the object has a name (RBAC ignores it for create).
            ...(verb === 'create' ? {} : { name: leaseName(tenant) }),
          },
        },
      });
    } catch {
      return undefined;
    }
    const status = review.status as { allowed?: unknown } | undefined;
    if (typeof status?.allowed !== 'boolean') return undefined;
    if (!status.allowed) missing.push(verb);
  }
  return missing;
}

/**
 * Throws when the follow may not write its lease: a verb the access reviews deny, else a lease
 * the server refused for another reason than another holder (`unavailable`, from `TenantLease`).
 * @throws LeaseGrantMissingError
 */
export function refuseWithoutLease(
  tenant: string,
  namespace: string,
  missing: readonly string[] | undefined,
  unavailable?: string,
): void {
  const lease = `${namespace}/${leaseName(tenant)}`;
  if (missing && missing.length > 0) {
    throw new LeaseGrantMissingError(
      namespace,
      missing,
      `this follow may not ${missing.join(', ')} leases.coordination.k8s.io in namespace ${namespace}, so it cannot hold the tenant's lease ${lease} and did not start (a follow writes only under the lease): ${grantNeeded(namespace)}`,
    );
  }
  if (unavailable) {
    throw new LeaseGrantMissingError(
      namespace,
      [],
      `this follow could not take the tenant's lease ${lease}, so it did not start (a follow writes only under the lease): ${unavailable}. If the server refused it, ${grantNeeded(namespace)}`,
    );
  }
}
