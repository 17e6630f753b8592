/**
 * Realignment: a tenant Service whose host copy has another cluster IP (the host held the
 * tenant's address, or it is in the band the host keeps for static assignment) is recreated in
 * the tenant with the copy's address: delete (uid and resourceVersion preconditions), then create
 * with the same metadata and spec and the copy's cluster IPs, one Decision saying why. A cluster
 * IP cannot change in place, so this is the only way; it runs in the pass that made the copy, so
 * it happens as early in the Service's life as it can.
 *
 * Only when the tenant can hold the address: a dry-run create in the tenant (the apiserver checks
 * an asked address against its range that way, not whether another Service holds it) and a LIST
 * of the tenant Services at that address come first. A tenant that cannot (its range is not the
 * host's, or a Service the engine does not sync holds it) is a Skip naming the address and the
 * tenant's answer, one per Service and pass, with no write: never a loop of recreations.
 *
 * A realignment loses nothing the tenant hung on the Service. One that owns tenant objects (their
 * `ownerReferences` name its uid: `dependents.ts`) is a Skip naming them, as for one with
 * finalizers: the old uid's dependents would be the tenant garbage collector's to delete. The
 * delete itself orphans (`release.ts`), so an owned object the engine could not see (a kind its
 * identity may not list, one made after it looked) loses its reference, never itself.
 */
import { errorMessage } from '../../../common/index.js';
import { type KindRef, type KubeObject, SERVICE } from '../../../ports/index.js';
import { budgetedWrite, passedOn } from '../../bounds/budgeted-write.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { hostName } from '../../names/naming.js';
import type { CopyPair } from '../frame/status-back.js';
import type { ServiceRanges } from './cluster-ip.js';
import { alignable, clusterIpsOf, misaligned, placeIn, realignedService } from './cluster-ip.js';
import { dependentsOf, namedDependents } from './dependents.js';
import { RELEASE_TIMING, type Released, releaseService } from './release.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Why the host copy did not get the tenant's address, as far as the host's ranges tell. */
export function notGivenBecause(tenantIps: readonly string[], ranges: ServiceRanges): string {
  if ('unreadable' in ranges) return 'the host allocated its own';
  for (const ip of tenantIps) {
    const place = placeIn(ip, ranges.cidrs);
    if (!place) return `${ip} is outside the host's service range (${ranges.cidrs.join(', ')})`;
    if (place.staticBand)
      return `${ip} is in the band of ${place.range} the host keeps for static assignment`;
  }
  return 'the host holds that address for another Service';
}

/** Realigns the tenant Services of a pass (see the module doc). */
export class Realign {
  constructor(
    private readonly ctx: PassContext,
    private readonly rule: KindRef,
    private readonly ranges: () => Promise<ServiceRanges>,
  ) {}

  /** The step before the status back: the tenant Services it recreated. */
  readonly run = async (pairs: readonly CopyPair[]): Promise<ReadonlySet<KubeObject>> => {
    const replaced = new Set<KubeObject>();
    for (const pair of pairs) {
      if (this.ctx.scope.bounds.isStopped()) break;
      if (!alignable(pair.tenant) || !misaligned(pair.host, pair.tenant)) continue;
      if (await this.realign(pair)) replaced.add(pair.tenant);
    }
    return replaced;
  };

  private decide(tenant: KubeObject, action: 'Update' | 'Skip', reason: string, error?: unknown) {
    const { namespace = '', name } = tenant.metadata;
    const { hostNamespace, tenant: tenantName } = this.ctx.scope;
    this.ctx.ledger.decide({
      action,
      rule: this.rule,
      tenantRef: { namespace, name },
      hostRef: { namespace: hostNamespace, name: hostName(name, namespace, tenantName) },
      reason,
      ...(error === undefined ? {} : { error }),
    });
  }

  /** Whether the tenant Service was deleted (and, unless its create failed, recreated). */
  private async realign({ host, tenant }: CopyPair): Promise<boolean> {
    const { tenantApi, bounds } = this.ctx.scope;
    const { name } = tenant.metadata;
    const want = clusterIpsOf(host);
    const had = clusterIpsOf(tenant);
    const address = `its host copy's cluster IP ${want.join(', ')}`;
    const { finalizers } = tenant.metadata;
    if (Array.isArray(finalizers) && finalizers.length > 0) {
      this.decide(
        tenant,
        'Skip',
        `not realigned to ${address}: it has finalizers, so deleting it to recreate it would wait on them`,
      );
      return false;
    }
    const body = realignedService(tenant, host);
    const { name: _name, ...meta } = body.metadata;
    const dry = await attempt(() =>
      tenantApi.create(
        { ...body, metadata: { ...meta, name: '', generateName: `${name.slice(0, 50)}-` } },
        { dryRun: true },
      ),
    );
    if (!dry.ok) {
      // The server's answer names the generated name: said as the Service's own, so the Skip is
      // the same pass after pass (a changing reason would rewrite status.lastPass every pass).
      const generated = new RegExp(`${escapeRegExp(`${name.slice(0, 50)}-`)}[a-z0-9]{5}`, 'g');
      const why = errorMessage(dry.error).replace(generated, name);
      const ranges = await this.ranges();
      const hostRanges =
        'unreadable' in ranges ? 'unread' : ranges.cidrs.join(', ') || 'none listed';
      this.decide(
        tenant,
        'Skip',
        `not realigned to ${address}: the tenant apiserver refuses that address (${why}); the tenant's service range must be the host's (${hostRanges}; docs/names-and-addresses.md)`,
      );
      return false;
    }
    const holders = await attempt(() =>
      tenantApi.list(SERVICE, { fieldSelector: `spec.clusterIP=${want[0]}`, limit: 2 }),
    );
    if (!holders.ok) {
      const why = errorMessage(holders.error);
      this.decide(
        tenant,
        'Skip',
        `not realigned to ${address}: the tenant Services at that address could not be listed (${why})`,
      );
      return false;
    }
    const holder = holders.value.items.find((s) => s.metadata.uid !== tenant.metadata.uid);
    if (holder) {
      const { namespace: ns, name: other } = holder.metadata;
      this.decide(
        tenant,
        'Skip',
        `not realigned to ${address}: tenant Service ${ns}/${other}, which has no host copy at that address, holds it in the tenant`,
      );
      return false;
    }
    // What names the old uid as owner would be orphaned at best: one that owns anything stays.
    const { owned } = await dependentsOf(tenantApi, tenant);
    if (owned.length > 0) {
      this.decide(
        tenant,
        'Skip',
        `not realigned to ${address}: tenant objects name it as their owner (${namedDependents(owned)}), and deleting it to recreate it would take them from it; it keeps its address until none does`,
      );
      return false;
    }
    return budgetedWrite<Released, boolean>(bounds, {
      writes: 2, // deleted, then created anew: one unit, never split
      whenSpent: () => {
        this.ctx.memory.resume.clear(this.rule); // the next pass lists it again and realigns it
        return false;
      },
      send: () => releaseService(tenantApi, tenant, () => bounds.isStopped()),
      decide: (released) => this.recreate(tenant, body, had, address, passedOn(released)),
    });
  }

  /** Creates the released tenant Service anew with its host copy's address (see {@link realign}). */
  private async recreate(
    tenant: KubeObject,
    body: KubeObject,
    had: readonly string[],
    address: string,
    released: Released,
  ): Promise<boolean> {
    const { tenantApi } = this.ctx.scope;
    const { namespace = '', name } = tenant.metadata;
    // Gone or changed since it was read: the next pass reads it anew.
    if (released.gone === false && !released.waiting) return false;
    const because = notGivenBecause(had, await this.ranges());
    const forced =
      released.gone === 'forced'
        ? `; the tenant's garbage collector did not let the old one go within ${RELEASE_TIMING.waitMs / 1000} s, so it was let go at once`
        : '';
    const reason = `recreated tenant Service ${namespace}/${name} with ${address} (it had ${had.join(', ')}; ${because}), so the tenant's address for it is the one the host serves${forced}`;
    if (released.gone === false) {
      const why = `deleted to be recreated with ${address}, it still waits for the tenant's garbage collector, which did not let it go within ${RELEASE_TIMING.waitMs / 1000} s, and it could not be let go at once`;
      this.decide(tenant, 'Update', `tenant Service ${namespace}/${name}: ${why}`, released.error);
      return true;
    }
    const created = await attempt(() => tenantApi.create(body));
    if (created.ok) {
      this.decide(tenant, 'Update', reason);
      return true;
    }
    // Deleted and not recreated: put it back as it was (its own address, free again) rather than
    // leave the tenant without it; the next pass sees it misaligned again, and says why.
    const original = realignedService(tenant, tenant);
    const restored = await attempt(() => tenantApi.create(original));
    const back = restored.ok
      ? 'restored as it was'
      : `and it could not be restored (${errorMessage(restored.error)})`;
    this.decide(tenant, 'Update', `${reason}: the create failed; ${back}`, created.error);
    return true;
  }
}
