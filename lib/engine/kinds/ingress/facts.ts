/** What the Ingress kind's turn reads for its translator (`ingress-hosts.ts`). */

/** The Ingress's facts (`HostFacts` of `../frame/translator.ts`). */
export interface IngressFacts {
  /**
   * The hosts the Ingresses of the host namespace name (rules and TLS, lowercase, a wildcard
   * spelt `*.example.com`), each with when it was first claimed by this tenant's copies and by
   * any other Ingress there (`ingress-hosts.ts`): a host another claimed first is refused.
   */
  ingressHosts?: ReadonlyMap<string, IngressHostClaim>;
}

/**
 * When the Ingresses of the host namespace first named one host: the earliest claim's creation
 * time (RFC 3339) and name, as `<time> <name>`, which order as strings.
 */
export interface IngressHostClaim {
  /** The earliest of this tenant's Ingress copies that name it. */
  readonly ours?: string;
  /** The earliest of every other Ingress there (another tenant's copy, the operator's own). */
  readonly others?: string;
}
