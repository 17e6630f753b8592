/**
 * The hosts an Ingress claims, and who claimed each first in the host namespace. A host Ingress
 * copy serves its hosts on a controller shared by every tenant of the host, so a tenant Ingress
 * naming a host another Ingress there already serves (another tenant's site, the operator's own)
 * would take its traffic. The Ingress turn reads the host namespace's Ingresses once a pass, when
 * a translation first needs them (`KindTurn.hostFacts`), and hands the translator when each host
 * was first claimed by this tenant's copies and by any other Ingress (`HostFacts.ingressHosts`):
 * the earlier claim keeps the host, whoever's it is, so two claims made before this check existed
 * settle on the first without a fight.
 *
 * Only the tenant's host namespace is read (the engine's grants reach no other): an Ingress of the
 * same host in another host namespace is not seen. Operators that share an ingress controller
 * between host namespaces give each tenant its own `spec.workloads.ingresses.hostSuffixes`.
 */
import { isRecord } from '../../../common/index.js';
import { INGRESS, type KubeObject, withRequestDeadline } from '../../../ports/index.js';
import { workDeadline } from '../../bounds/deadlines.js';
import type { PassContext } from '../../context/pass-context.js';
import { attempt } from '../../errors.js';
import { listEveryPage } from '../../listing/every-page.js';
import { ourCopySource } from '../../names/reverse-mapping.js';
import type { IngressFacts, IngressHostClaim } from './facts.js';

/** One host an Ingress names, where. */
export interface NamedHost {
  /** As written. */
  host: string;
  /** `spec.rules[0].host`, `spec.tls[1].hosts[0]`. */
  path: string;
}

/** A host as claims compare it: lowercase, without a trailing dot. */
export function hostKey(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** Every host an Ingress spec names: its rules' hosts, then its TLS entries' hosts. */
export function namedHosts(spec: unknown): NamedHost[] {
  if (!isRecord(spec)) return [];
  const found: NamedHost[] = [];
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((rule, r) => {
    if (isRecord(rule) && typeof rule.host === 'string' && rule.host !== '') {
      found.push({ host: rule.host, path: `spec.rules[${r}].host` });
    }
  });
  const tls = Array.isArray(spec.tls) ? spec.tls : [];
  tls.forEach((entry, t) => {
    const hosts = isRecord(entry) && Array.isArray(entry.hosts) ? entry.hosts : [];
    hosts.forEach((host, h) => {
      if (typeof host === 'string' && host !== '') {
        found.push({ host, path: `spec.tls[${t}].hosts[${h}]` });
      }
    });
  });
  return found;
}

/**
 * Who first named each host among `ingresses` (the host namespace's): this tenant's copies
 * (`ours`) and every other Ingress (`others`), by creation time, then name. An object without a
 * creation time counts as the earliest: it cannot be shown to be later.
 */
export function ingressHostClaims(
  ingresses: readonly KubeObject[],
  tenant: string,
): Map<string, IngressHostClaim> {
  const claims = new Map<string, { ours?: string; others?: string }>();
  const owner = { tenant, kind: INGRESS.kind };
  for (const ingress of ingresses) {
    if (ingress.metadata.deletionTimestamp) continue;
    const side = ourCopySource(ingress, owner) ? 'ours' : 'others';
    // Ordered by creation time, then name: two claims of one second still have a first.
    const created = `${ingress.metadata.creationTimestamp ?? ''} ${ingress.metadata.name}`;
    for (const { host } of namedHosts(ingress.spec)) {
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
 * Why `host` is another's, or `undefined`: another Ingress named it (or, for a plain host, the
 * wildcard one label up, which serves it) before this tenant's first copy that names it.
 */
export function takenBy(
  host: string,
  claims: ReadonlyMap<string, IngressHostClaim>,
): string | undefined {
  const key = hostKey(host);
  const ours = claims.get(key)?.ours;
  const earlier = (others: string | undefined) =>
    others !== undefined && (ours === undefined || others < ours);
  if (earlier(claims.get(key)?.others)) {
    return 'is already served by another Ingress of the host namespace, which named it first';
  }
  const dot = key.indexOf('.');
  if (!key.startsWith('*.') && dot > 0) {
    const wildcard = `*${key.slice(dot)}`;
    if (earlier(claims.get(wildcard)?.others)) {
      return `is already served by another Ingress of the host namespace, through its ${wildcard}, which came first`;
    }
  }
  return undefined;
}

/**
 * The Ingress turn's host facts: the host namespace's Ingresses read once, at the first page that
 * has an Ingress to translate, as {@link ingressHostClaims}. A read that fails is recorded as the
 * kind's host listing failure and rejects, so the path takes in no Ingress on an unknown answer.
 */
export function ingressHostFacts(
  ctx: PassContext,
): (tenantObjects: readonly KubeObject[]) => Promise<IngressFacts | undefined> {
  let read: Promise<IngressFacts> | undefined;
  const readClaims = async (): Promise<IngressFacts> => {
    const { hostApi, hostNamespace, bounds, tenant } = ctx.scope;
    const listed = await attempt(() =>
      withRequestDeadline(workDeadline(bounds.budget), () =>
        listEveryPage(hostApi, INGRESS, bounds.budget.pageSize, { namespace: hostNamespace }),
      ),
    );
    if (!listed.ok) {
      const why = 'the hosts other Ingresses serve could not be read, so no Ingress was synced';
      ctx.ledger.errors.listingFailed(INGRESS, 'host', listed.error, why);
      throw listed.error;
    }
    return { ingressHosts: ingressHostClaims(listed.value, tenant) };
  };
  return (tenantObjects) => {
    if (tenantObjects.length === 0) return Promise.resolve(undefined);
    read ??= readClaims();
    return read;
  };
}
