/** What the Ingress kind's turn reads for its translator (`ingress-hosts.ts`). */
import type { HostClaim } from '../frame/host-claims.js';

/** The Ingress's facts (`HostFacts` of `../frame/translator.ts`). */
export interface IngressFacts {
  /**
   * The hosts the Ingresses of the host namespace name (rules and TLS, lowercase, a wildcard
   * spelt `*.example.com`), each with when it was first claimed by this tenant's copies and by
   * any other Ingress there (`ingress-hosts.ts`): a host another claimed first is refused.
   */
  ingressHosts?: ReadonlyMap<string, IngressHostClaim>;
}

/** When the Ingresses of the host namespace first named one host (`../frame/host-claims.ts`). */
export type IngressHostClaim = HostClaim;
