/**
 * Where the command's two clusters come from: kubeconfig files, Secrets Manager ids, or (when
 * nothing is given) the embedded local control plane, started on first use.
 */
import type { KubeClusterApi } from '../adapters/kube/cluster-client.js';
import type { ClusterRole, KubeconfigSource } from '../ports/index.js';
import { UsageError } from './errors.js';

/** The connection flags every cluster-using command takes. */
export interface ClusterFlags {
  tenantKubeconfig?: string;
  hostKubeconfig?: string;
  context?: string;
  tenantContext?: string;
  hostContext?: string;
  secrets?: string;
}

export type KubeconfigChoice =
  | { source: 'files'; tenantPath: string; hostPath: string }
  | { source: 'secrets'; tenantSecretId: string; hostSecretId: string }
  | { source: 'local' };

/**
 * Decides where the kubeconfigs come from. Files need both flags; `--secrets` takes
 * `<tenantSecretId>,<hostSecretId>` and excludes the file flags; nothing at all means the local
 * control plane.
 * @throws UsageError for an incomplete or contradictory combination.
 */
export function chooseKubeconfigs(flags: ClusterFlags): KubeconfigChoice {
  const { tenantKubeconfig, hostKubeconfig, secrets } = flags;
  const anyFile = tenantKubeconfig !== undefined || hostKubeconfig !== undefined;
  if (secrets !== undefined) {
    if (anyFile) {
      throw new UsageError(
        '--secrets cannot be combined with --tenant-kubeconfig or --host-kubeconfig; give one or the other',
      );
    }
    const parts = secrets.split(',').map((p) => p.trim());
    if (parts.length !== 2 || parts.some((p) => p === '')) {
      throw new UsageError(
        `--secrets takes two secret ids separated by a comma, <tenantSecretId>,<hostSecretId>; got ${JSON.stringify(secrets)}`,
      );
    }
    return {
      source: 'secrets',
      tenantSecretId: parts[0] as string,
      hostSecretId: parts[1] as string,
    };
  }
  if (anyFile) {
    if (!tenantKubeconfig || !hostKubeconfig) {
      throw new UsageError(
        '--tenant-kubeconfig and --host-kubeconfig go together: tenantplane needs both clusters',
      );
    }
    return { source: 'files', tenantPath: tenantKubeconfig, hostPath: hostKubeconfig };
  }
  return { source: 'local' };
}

/** The kubeconfig context for a role: `--tenant-context`/`--host-context`, else `--context`. */
export function contextFor(flags: ClusterFlags, role: ClusterRole): string | undefined {
  return (role === 'tenant' ? flags.tenantContext : flags.hostContext) ?? flags.context;
}

/** Lazily opened clients of both clusters; `close()` releases their connections. */
export interface Clusters {
  tenant(): Promise<KubeClusterApi>;
  host(): Promise<KubeClusterApi>;
  close(): Promise<void>;
}

async function sourceFor(
  choice: KubeconfigChoice,
  log: (line: string) => void,
): Promise<KubeconfigSource> {
  switch (choice.source) {
    case 'files': {
      const { FileKubeconfigSource } = await import('../adapters/kubeconfig/file-source.js');
      return new FileKubeconfigSource({ tenantPath: choice.tenantPath, hostPath: choice.hostPath });
    }
    case 'secrets': {
      const { SecretsManagerKubeconfigSource } = await import(
        '../adapters/kubeconfig/secrets-manager-source.js'
      );
      return new SecretsManagerKubeconfigSource({
        tenantSecretId: choice.tenantSecretId,
        hostSecretId: choice.hostSecretId,
      });
    }
    case 'local': {
      const { ensureLocalClusters, LocalKubeconfigSource } = await import(
        '../localcluster/index.js'
      );
      const state = await ensureLocalClusters({ log });
      return new LocalKubeconfigSource(state);
    }
  }
}

/**
 * Opens the clusters the flags name. Nothing is loaded until a cluster is first asked for, so
 * a command that needs only the host never touches the tenant's kubeconfig.
 */
export function openClusters(flags: ClusterFlags, log: (line: string) => void): Clusters {
  const choice = chooseKubeconfigs(flags);
  let source: Promise<KubeconfigSource> | undefined;
  const opened = new Map<ClusterRole, Promise<KubeClusterApi>>();
  const open = (role: ClusterRole): Promise<KubeClusterApi> => {
    let api = opened.get(role);
    if (!api) {
      source ??= sourceFor(choice, log);
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
    async close() {
      await Promise.allSettled([...opened.values()].map(async (api) => (await api).close()));
    },
  };
}

/**
 * Runs `use` with the clusters the flags name and closes them however it ends: an open
 * connection would keep the process alive after the command is done.
 */
export async function withClusters<T>(
  flags: ClusterFlags,
  log: (line: string) => void,
  use: (clusters: Clusters) => Promise<T>,
): Promise<T> {
  const clusters = openClusters(flags, log);
  try {
    return await use(clusters);
  } finally {
    await clusters.close();
  }
}
