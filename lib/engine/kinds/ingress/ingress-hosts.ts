/**
 * The hosts an Ingress claims. A host Ingress copy serves its hosts on a controller shared by
 * every tenant of the host, so a tenant Ingress naming a host another Ingress of the host
 * namespace already serves (another tenant's site, the operator's own) would take its traffic:
 * the Ingress turn reads the host namespace's Ingresses once a pass, when a translation first
 * needs them (`KindTurn.hostFacts`), and hands the translator who first claimed each host
 * (`IngressFacts.ingressHosts`), by the frame's claims (`../frame/host-claims.ts`): the earlier
 * claim keeps the host.
 */
import { isRecord } from '../../../common/index.js';
import { INGRESS, type KubeObject } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import {
  takenBy as claimTakenBy,
  type HostClaim,
  hostClaims,
  hostKey,
  type NamedHost,
  readHostClaims,
} from '../frame/host-claims.js';
import type { IngressFacts } from './facts.js';

export type { NamedHost };
export { hostKey };

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

const hostsOf = (ingress: KubeObject) => namedHosts(ingress.spec);

/** Who first named each host among `ingresses` (the host namespace's): `hostClaims`. */
export function ingressHostClaims(
  ingresses: readonly KubeObject[],
  tenant: string,
): Map<string, HostClaim> {
  return hostClaims(ingresses, { tenant, kind: INGRESS }, hostsOf);
}

/** Why `host` is another Ingress's, or `undefined` (the frame's `takenBy`). */
export function takenBy(host: string, claims: ReadonlyMap<string, HostClaim>): string | undefined {
  return claimTakenBy(host, claims, 'Ingress');
}

/**
 * The Ingress turn's host facts: the host namespace's Ingresses read once, at the first page that
 * has an Ingress to translate. A read that fails takes in no Ingress.
 */
export function ingressHostFacts(
  ctx: PassContext,
): (tenantObjects: readonly KubeObject[]) => Promise<IngressFacts | undefined> {
  const why = 'the hosts other Ingresses serve could not be read, so no Ingress was synced';
  const read = readHostClaims(ctx, INGRESS, hostsOf, why);
  return async (tenantObjects) => {
    const claims = await read(tenantObjects);
    return claims && { ingressHosts: claims };
  };
}
