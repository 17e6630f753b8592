/**
 * What `state.json` records of a running local control plane, and the names of its two clusters:
 * shared by the code that starts, finds and stops it (`control-plane.ts`).
 */
import type { BinaryPaths } from './binaries.js';
import type { LocalWake } from './wake.js';
import type { ComponentProcess } from './workloads.js';

/** The two clusters of the local control plane. */
export const LOCAL_CLUSTERS = ['tenant', 'host'] as const;
export type LocalClusterName = (typeof LOCAL_CLUSTERS)[number];

export interface LocalApiServer {
  pid: number;
  port: number;
  server: string;
  kubeconfig: string;
  /**
   * The tenant's DNS (`127.0.0.1:<port>`, UDP and TCP): the local stand-in of deploy/tenant-dns
   * (`tenant-dns.ts`). Tenant only, and only with the workload components.
   */
  dns?: string;
}

/** What `state.json` records of a running control plane. */
export interface ControlPlaneState {
  /** The host's release (`TENANTPLANE_KUBERNETES_VERSION`, else the pinned one). */
  version: string;
  stateDir: string;
  /** The tenant's (the pinned release's) binaries, kubectl, kwok and CoreDNS among them. */
  binaries: BinaryPaths;
  /** The host's apiserver, scheduler, controller manager and etcd, when of another release. */
  hostBinaries?: BinaryPaths;
  etcd: { pid: number; port: number; peerPort: number };
  clusters: Record<LocalClusterName, LocalApiServer>;
  /** Scheduler, controller managers and kwok (`workloads.ts`); empty when started without. */
  components: ComponentProcess[];
  /** The local wake endpoint the tenant apiserver's audit webhook posts to (`wake.ts`). */
  wake: LocalWake;
  reaperPid?: number;
  startedAt: string;
  /** The Gateway API release whose CRDs both apiservers serve (`gateway-api.ts`). */
  gatewayApi?: string;
}
