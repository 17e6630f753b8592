/** What the Pod kind's turn reads for its translator (`tenant-dns.ts`). */

/** The Pod's facts (`HostFacts` of `../frame/translator.ts`). */
export interface PodFacts {
  /**
   * The cluster IP of the host copy of the tenant DNS Service (`spec.workloads.tenantDns.service`),
   * read once a pass: the nameserver of every host Pod that asks for cluster DNS.
   */
  tenantDnsAddress?: string;
}
