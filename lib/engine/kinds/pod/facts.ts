/** What the Pod kind's turn reads for its translator (`tenant-dns.ts`, `host-fields.ts`). */
import type { HostPodSchema } from '../../tenant/host-pod-schema.js';

/** The Pod's facts (`HostFacts` of `../frame/translator.ts`). */
export interface PodFacts {
  /**
   * The cluster IP of the host copy of the tenant DNS Service (`spec.workloads.tenantDns.service`),
   * read once a pass: the nameserver of every host Pod that asks for cluster DNS.
   */
  tenantDnsAddress?: string;
  /**
   * The Pod fields the host serves, when it lacks some the engine knows (`fields/host-served.ts`):
   * a Pod that sets one is refused. Absent on a host that serves them all, or could not tell.
   */
  hostPodSchema?: HostPodSchema;
}
