/**
 * Who first claimed each hostname in the host namespace, for every kind whose host copies claim
 * hostnames on a controller every tenant of the host shares (an Ingress's hosts, a Gateway API
 * route's hostnames): a copy naming a hostname another object there named first would take its
 * traffic. The earlier claim keeps the hostname, whoever's it is, so two claims made before the
 * check existed settle on the first without a fight. A kind's turn reads its host namespace's
 * objects once a pass, when a translation first needs them ({@link readHostClaims}), and hands
 * the claims to its translator as a fact of its own.
 *
 * Only the tenant's host namespace is read (the engine's grants reach no other): a claim in
 * another host namespace is not seen. Operators that share a controller between host namespaces
 * give each tenant its own host suffixes.
 */
import type { KindRef, KubeObject } from '../../../ports/index.js';
import { withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import { ourCopySource } from '../../names/reverse-mapping.js';

/** One hostname an object names, where. */
export interface NamedHost {
  /** As written. */
  host: string;
  /** `spec.rules[0].host`, `spec.hostnames[1]`. */
  path: string;
}

/**
 * When the objects of the host namespace first named one hostname: the earliest claim's creation
 * time (RFC 3339) and name, as `<time> <name>`, which order as strings.
 */
export interface HostClaim {
  /** The earliest of this tenant's copies that name it. */
  readonly ours?: string;
  /** The earliest of every other object there (another tenant's copy, the operator's own). */
  readonly others?: string;
}

/** A hostname as claims compare it: lowercase, without a trailing dot. */
export function hostKey(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * Who first named each hostname among `objects` (the host namespace's, of `owner.kind`): this
 * tenant's copies (`ours`) and every other object (`others`), by creation time, then name. An
 * object without a creation time counts as the earliest: it cannot be shown to be later.
 */
export function hostClaims(
  objects: readonly KubeObject[],
  owner: { tenant: string; kind: KindRef },
  hostsOf: (object: KubeObject) => NamedHost[],
): Map<string, HostClaim> {
  const claims = new Map<string, { ours?: string; others?: string }>();
  const kind = { tenant: owner.tenant, kind: owner.kind.kind };
  for (const object of objects) {
    if (object.metadata.deletionTimestamp) continue;
    const side = ourCopySource(object, kind) ? 'ours' : 'others';
    // Ordered by creation time, then name: two claims of one second still have a first.
    const created = `${object.metadata.creationTimestamp ?? ''} ${object.metadata.name}`;
    for (const { host } of hostsOf(object)) {
      const key = hostKey(host);
      const claim = claims.get(key) ?? {};
      const was = claim[side];
      if (was === undefined || created < was) claim[side] = created;
      claims.set(key, claim);
    }
  }
  return claims;
}

/**
 * Why `host` is another's, or `undefined`: another object (`what`: `Ingress`) named it (or, for a
 * plain hostname, the wildcard one label up, which serves it) before this tenant's first copy
 * that names it.
 */
export function takenBy(
  host: string,
  claims: ReadonlyMap<string, HostClaim>,
  what: string,
): string | undefined {
  const key = hostKey(host);
  const ours = claims.get(key)?.ours;
  const earlier = (others: string | undefined) =>
    others !== undefined && (ours === undefined || others < ours);
  if (earlier(claims.get(key)?.others)) {
    return `is already served by another ${what} of the host namespace, which named it first`;
  }
  const dot = key.indexOf('.');
  if (!key.startsWith('*.') && dot > 0) {
    const wildcard = `*${key.slice(dot)}`;
    if (earlier(claims.get(wildcard)?.others)) {
      return `is already served by another ${what} of the host namespace, through its ${wildcard}, which came first`;
    }
  }
  return undefined;
}

/**
 * A turn's host facts of claims: the host namespace's objects of `kind` read once, at the first
 * page that has an object to translate, as {@link hostClaims}. A read that fails is recorded as
 * the kind's host listing failure (`why`) and rejects, so the path takes in nothing of the kind
 * on an unknown answer.
 */
export function readHostClaims(
  ctx: PassContext,
  kind: KindRef,
  hostsOf: (object: KubeObject) => NamedHost[],
  why: string,
): (tenantObjects: readonly KubeObject[]) => Promise<Map<string, HostClaim> | undefined> {
  let read: Promise<Map<string, HostClaim>> | undefined;
  const readClaims = async (): Promise<Map<string, HostClaim>> => {
    const { hostApi, hostNamespace, bounds, tenant } = ctx.scope;
    const listed = await attempt(() =>
      withRequestDeadline(workDeadline(bounds.budget), () =>
        listEveryPage(hostApi, kind, bounds.budget.pageSize, { namespace: hostNamespace }),
      ),
    );
    if (!listed.ok) {
      ctx.ledger.errors.listingFailed(kind, 'host', listed.error, why);
      throw listed.error;
    }
    return hostClaims(listed.value, { tenant, kind }, hostsOf);
  };
  return (tenantObjects) => {
    if (tenantObjects.length === 0) return Promise.resolve(undefined);
    read ??= readClaims();
    return read;
  };
}
