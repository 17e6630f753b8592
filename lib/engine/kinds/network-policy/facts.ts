/** What the NetworkPolicy kind's turn reads for its translator (`network-policy-namespaces.ts`). */

/** The NetworkPolicy's facts (`HostFacts` of `../frame/translator.ts`). */
export interface NetworkPolicyFacts {
  /**
   * The names of the tenant's namespaces, read from the tenant (not the host) when a
   * NetworkPolicy peer names a namespace that is neither mapped to a host namespace nor a tenant
   * system namespace: a name the tenant does not have means a host namespace, which the peer
   * would never reach.
   */
  tenantNamespaces?: ReadonlySet<string>;
}
