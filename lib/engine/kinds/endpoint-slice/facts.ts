/** What the EndpointSlice kind's turn reads for its translator (`own-pod-ips.ts`). */

/** The EndpointSlice's facts (`HostFacts` of `../frame/translator.ts`). */
export interface EndpointSliceFacts {
  /**
   * The Pod IPs of this tenant's host Pods (its copies, not on the host network, not ended), each
   * spelt as `canonicalAddress` (`policy/cidr.ts`) spells it: the addresses an EndpointSlice may
   * name beyond `spec.workloads.endpoints.cidrs`.
   */
  ownPodIps?: ReadonlySet<string>;
}
