/**
 * The command's two clusters, opened lazily from the kubeconfigs the connection flags pick
 * (`kubeconfig-choice.ts`: kubeconfig files, Secrets Manager ids, or the embedded local control
 * plane, started on first use).
 */
import type { KubeClusterApi } from '../adapters/kube/cluster-client.js';
import type { ClusterRole, KubeconfigSource } from '../ports/index.js';
import { type CliIo, localLog } from './io.js';
import {
  type ClusterFlags,
  chooseKubeconfigs,
  contextFor,
  kubeconfigSource,
} from './kubeconfig-choice.js';
import { missingCrdError } from './tenant-cluster-crd.js';

/** What opening clusters needs of the terminal: its environment, and stderr for `[local]` lines. */
export type ClusterIo = Pick<CliIo, 'env' | 'err'>;

/** Lazily opened clients of both clusters; `close()` releases their connections. */
export interface Clusters {
  tenant(): Promise<KubeClusterApi>;
  host(): Promise<KubeClusterApi>;
  /** The client of `role` if the command opened it, without opening it. */
  opened(role: ClusterRole): Promise<KubeClusterApi> | undefined;
  close(): Promise<void>;
}

/**
 * Opens the clusters the flags name. Nothing is loaded until a cluster is first asked for, so
 * a command that needs only the host never touches the tenant's kubeconfig.
 */
export function openClusters(flags: ClusterFlags, io: ClusterIo): Clusters {
  const choice = chooseKubeconfigs(flags, io.env);
  const log = localLog(io);
  let source: Promise<KubeconfigSource> | undefined;
  const opened = new Map<ClusterRole, Promise<KubeClusterApi>>();
  const open = (role: ClusterRole): Promise<KubeClusterApi> => {
    let api = opened.get(role);
    if (!api) {
      source ??= kubeconfigSource(
        choice,
        { tenant: contextFor(flags, 'tenant'), host: contextFor(flags, 'host') },
        log,
      );
      api = source.then(async (s) => {
        const { createClusterApi } = await import('../adapters/kube/cluster-client.js');
        const kubeconfig = await s.load(role);
        const context = contextFor(flags, role);
        return createClusterApi(kubeconfig, context === undefined ? {} : { context });
      });
      opened.set(role, api);
    }
    return api;
  };
  return {
    tenant: () => open('tenant'),
    host: () => open('host'),
    opened: (role) => opened.get(role),
    async close() {
      await Promise.allSettled([...opened.values()].map(async (api) => (await api).close()));
    },
  };
}

/**
 * Runs `use` with the clusters the flags name and closes them however it ends: an open
 * connection would keep the process alive after the command is done. A "not found" failure on a
 * host without the TenantCluster CRD is reported as the missing CRD, with how to install it.
 * @param io where `KUBECONFIG` and `HOME` are read, and `[local]` progress is written
 */
export async function withClusters<T>(
  flags: ClusterFlags,
  io: ClusterIo,
  use: (clusters: Clusters) => Promise<T>,
): Promise<T> {
  const clusters = openClusters(flags, io);
  try {
    return await use(clusters);
  } catch (error) {
    const host = clusters.opened('host');
    const crd = host === undefined ? undefined : await missingCrdError(await host, error);
    throw crd ?? error;
  } finally {
    await clusters.close();
  }
}
