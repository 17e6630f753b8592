/**
 * A follow writes only under the tenant's lease: one whose identity may not write the Lease
 * (the access reviews deny a verb, or the server refuses the lease) does not start, and its error
 * names the grant; nothing is written, no watch opened.
 */
import { describe, expect, it } from '@jest/globals';
import { runFollow } from '../../../../lib/engine/follow/follow.js';
import {
  LEASE_VERBS,
  LeaseGrantMissingError,
  missingLeaseVerbs,
  refuseWithoutLease,
} from '../../../../lib/engine/follow/lease-grants.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, HOST_NS, TENANT, tenantCluster } from '../support.js';

/** A host that answers access reviews: `denied` verbs are not allowed. */
class ReviewingHost extends MemoryCluster {
  readonly asked: Record<string, unknown>[] = [];
  constructor(private readonly denied: readonly string[] | 'unanswered') {
    super('host');
  }
  override async create(object: KubeObject, options = {}): Promise<KubeObject> {
    if (object.kind !== 'SelfSubjectAccessReview') return super.create(object, options);
    const attributes = (object.spec as { resourceAttributes: Record<string, unknown> })
      .resourceAttributes;
    this.asked.push(attributes);
    if (this.denied === 'unanswered') throw new ClusterError('NotFound', 'not served');
    return { ...object, status: { allowed: !this.denied.includes(String(attributes.verb)) } };
  }
}

describe('missingLeaseVerbs', () => {
  it.each([
    { denied: [], missing: [] },
    { denied: ['update', 'delete'], missing: ['update', 'delete'] },
    { denied: [...LEASE_VERBS], missing: [...LEASE_VERBS] },
  ])('denied $denied: missing $missing', async ({ denied, missing }) => {
    const host = new ReviewingHost(denied);
    expect(await missingLeaseVerbs(host, TENANT, HOST_NS)).toEqual(missing);
    expect(host.asked).toEqual([
      {
        group: 'coordination.k8s.io',
        resource: 'leases',
        verb: 'get',
        namespace: HOST_NS,
        name: 'tenantplane-dev',
      },
      { group: 'coordination.k8s.io', resource: 'leases', verb: 'create', namespace: HOST_NS },
      {
        group: 'coordination.k8s.io',
        resource: 'leases',
        verb: 'update',
        namespace: HOST_NS,
        name: 'tenantplane-dev',
      },
      {
        group: 'coordination.k8s.io',
        resource: 'leases',
        verb: 'delete',
        namespace: HOST_NS,
        name: 'tenantplane-dev',
      },
    ]);
  });

  it('a host that cannot answer: unknown (the lease itself tells)', async () => {
    expect(
      await missingLeaseVerbs(new ReviewingHost('unanswered'), TENANT, HOST_NS),
    ).toBeUndefined();
  });
});

describe('refuseWithoutLease', () => {
  it('names the denied verbs and the grant', () => {
    expect(() => refuseWithoutLease(TENANT, HOST_NS, ['create', 'update'])).toThrow(
      `this follow may not create, update leases.coordination.k8s.io in namespace ${HOST_NS}, so it cannot hold the tenant's lease ${HOST_NS}/tenantplane-dev and did not start (a follow writes only under the lease): grant the verbs get, create, update, delete on leases (API group coordination.k8s.io) in namespace ${HOST_NS}`,
    );
  });

  it('a lease refused for another reason: the server’s words and the grant', () => {
    expect(() => refuseWithoutLease(TENANT, HOST_NS, [], 'leases is forbidden')).toThrow(
      /could not take the tenant's lease tenant-dev\/tenantplane-dev, so it did not start .*: leases is forbidden\. If the server refused it, grant the verbs/,
    );
  });

  it('all granted, the lease taken: nothing to refuse', () => {
    expect(() => refuseWithoutLease(TENANT, HOST_NS, [], undefined)).not.toThrow();
    expect(() => refuseWithoutLease(TENANT, HOST_NS, undefined, undefined)).not.toThrow();
  });
});

describe('runFollow without the lease', () => {
  const follow = (hostApi: MemoryCluster) =>
    runFollow({
      tenant: TENANT,
      tenantApi: new MemoryCluster('tenant'),
      hostApi,
      quietSeconds: 0,
    });

  it('an identity the access reviews deny the lease does not start, and writes nothing', async () => {
    const host = new ReviewingHost(['create']).seed(tenantCluster({ toHost: [CONFIGMAP] }));
    const error = await follow(host).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseGrantMissingError);
    expect(String(error)).toContain(
      `may not create leases.coordination.k8s.io in namespace ${HOST_NS}`,
    );
    expect(host.calls.filter((c) => c.method !== 'get' && c.method !== 'list')).toEqual([]);
  });

  it('a lease the server refuses (no review answered) does not start either', async () => {
    const host = new ReviewingHost('unanswered').seed(tenantCluster({ toHost: [CONFIGMAP] }));
    host.failWhen((c) =>
      c.kind === 'Lease'
        ? new ClusterError('Forbidden', 'leases.coordination.k8s.io is forbidden', { status: 403 })
        : undefined,
    );
    const error = await follow(host).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseGrantMissingError);
    expect(String(error)).toContain('leases.coordination.k8s.io is forbidden');
    expect(
      host.calls.filter((c) => c.method !== 'get' && c.method !== 'list' && c.kind !== 'Lease'),
    ).toEqual([]);
  });
});
