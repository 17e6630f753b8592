/**
 * Which kubeconfigs the command's connection flags pick, and the source that loads them: one file
 * per cluster, kubectl-style files that may hold both clusters (found the way kubectl finds them),
 * Secrets Manager ids, or (when nothing is given) the embedded local control plane. The sources
 * themselves are the adapters of `lib/adapters/kubeconfig/`; each is imported only when a cluster
 * is first opened: the AWS SDK, the local control plane and the YAML merging cost startup time
 * that `tenantplane name` or a usage error should never pay.
 */
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeconfigFiles } from '../adapters/kubeconfig/kubectl-source.js';
import type { ClusterRole, KubeconfigSource } from '../ports/index.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';

/** The connection flags every cluster-using command takes. */
export interface ClusterFlags {
  kubeconfig?: string;
  tenantKubeconfig?: string;
  hostKubeconfig?: string;
  context?: string;
  tenantContext?: string;
  hostContext?: string;
  secrets?: string;
}

/** The environment the command reads (`KUBECONFIG`, `HOME`). */
export type CliEnv = CliIo['env'];

/**
 * Where the kubeconfigs come from: one file per cluster (`files`), kubectl-style files that may
 * hold both clusters (`kubeconfig`; the same object for both when they do), Secrets Manager, or
 * the local control plane.
 */
export type KubeconfigChoice =
  | { source: 'files'; tenantPath: string; hostPath: string }
  | { source: 'kubeconfig'; tenant: KubeconfigFiles; host: KubeconfigFiles }
  | { source: 'secrets'; tenantSecretId: string; hostSecretId: string }
  | { source: 'local' };

/**
 * The kubeconfig that holds both clusters, kubectl's way: `--kubeconfig <file>`, else the files of
 * `KUBECONFIG`, else `~/.kube/config`. Only `--kubeconfig` or a context flag (`--context`,
 * `--tenant-context`, `--host-context`) asks for it, as naming a context does for kubectl: with
 * none, the default stays the local control plane, and a `KUBECONFIG` exported for other work
 * never points a pass at an unintended cluster.
 */
function sharedKubeconfig(flags: ClusterFlags, env: CliEnv): KubeconfigFiles | undefined {
  if (flags.kubeconfig !== undefined) {
    return { paths: [flags.kubeconfig], via: '--kubeconfig', skipMissing: false };
  }
  const anyContext =
    flags.context !== undefined ||
    flags.tenantContext !== undefined ||
    flags.hostContext !== undefined;
  if (!anyContext) return undefined;
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  if (list.length > 0) {
    return { paths: [...new Set(list)], via: 'KUBECONFIG', skipMissing: true };
  }
  const home = env.HOME || homedir();
  return { paths: [join(home, '.kube', 'config')], via: '~/.kube/config', skipMissing: false };
}

function secretsChoice(secrets: string): KubeconfigChoice {
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

/**
 * Decides where the kubeconfigs come from. `--tenant-kubeconfig` + `--host-kubeconfig` name one
 * file each; `--kubeconfig` (or, with a context flag, `KUBECONFIG` or `~/.kube/config`) holds both clusters, a per-cluster file flag overriding it for its cluster;
 * `--secrets` takes `<tenantSecretId>,<hostSecretId>` and excludes the file flags; nothing at
 * all means the local control plane.
 * @param env where `KUBECONFIG` and `HOME` are read (the command's environment)
 * @throws UsageError for an incomplete or contradictory combination.
 */
export function chooseKubeconfigs(
  flags: ClusterFlags,
  env: CliEnv = process.env,
): KubeconfigChoice {
  const { kubeconfig, tenantKubeconfig, hostKubeconfig, secrets } = flags;
  const anyFile =
    kubeconfig !== undefined || tenantKubeconfig !== undefined || hostKubeconfig !== undefined;
  if (secrets !== undefined) {
    if (anyFile) {
      throw new UsageError(
        '--secrets cannot be combined with --kubeconfig, --tenant-kubeconfig or --host-kubeconfig; give one or the other',
      );
    }
    return secretsChoice(secrets);
  }
  if (tenantKubeconfig !== undefined && hostKubeconfig !== undefined) {
    if (kubeconfig !== undefined) {
      throw new UsageError(
        '--kubeconfig is left with nothing to do: --tenant-kubeconfig and --host-kubeconfig already name both clusters',
      );
    }
    return { source: 'files', tenantPath: tenantKubeconfig, hostPath: hostKubeconfig };
  }
  const shared = sharedKubeconfig(flags, env);
  if (shared === undefined) {
    if (anyFile) {
      throw new UsageError(
        '--tenant-kubeconfig and --host-kubeconfig go together: tenantplane needs both clusters (or give one --kubeconfig with --tenant-context and --host-context)',
      );
    }
    return { source: 'local' };
  }
  const own = (path: string | undefined, flag: string): KubeconfigFiles =>
    path === undefined ? shared : { paths: [path], via: flag, skipMissing: false };
  return {
    source: 'kubeconfig',
    tenant: own(tenantKubeconfig, '--tenant-kubeconfig'),
    host: own(hostKubeconfig, '--host-kubeconfig'),
  };
}

/**
 * For commands that use both clusters: when one kubeconfig holds both, their contexts must be
 * named and differ, or the "tenant" would be the host itself.
 * @throws UsageError otherwise.
 */
export function checkDistinctClusters(choice: KubeconfigChoice, flags: ClusterFlags): void {
  if (choice.source !== 'kubeconfig' || choice.tenant !== choice.host) return;
  const tenant = contextFor(flags, 'tenant');
  const host = contextFor(flags, 'host');
  if (tenant === undefined && host === undefined) {
    throw new UsageError(
      `one kubeconfig (${choice.host.via}) holds both clusters: name the tenant's context with --tenant-context and the host's with --host-context`,
    );
  }
  if (tenant === host) {
    throw new UsageError(
      `the tenant and the host would both use context ${JSON.stringify(tenant)}: name different contexts with --tenant-context and --host-context`,
    );
  }
}

/** The kubeconfig context for a role: `--tenant-context`/`--host-context`, else `--context`. */
export function contextFor(flags: ClusterFlags, role: ClusterRole): string | undefined {
  return (role === 'tenant' ? flags.tenantContext : flags.hostContext) ?? flags.context;
}

/**
 * The source for `choice`. `contexts` are the contexts the flags name per cluster; a kubeconfig
 * holding both clusters needs them to tell the two apart.
 */
export async function kubeconfigSource(
  choice: KubeconfigChoice,
  contexts: Record<ClusterRole, string | undefined>,
  log: (line: string) => void,
): Promise<KubeconfigSource> {
  switch (choice.source) {
    case 'files': {
      const { FileKubeconfigSource } = await import('../adapters/kubeconfig/file-source.js');
      return new FileKubeconfigSource({ tenantPath: choice.tenantPath, hostPath: choice.hostPath });
    }
    case 'kubeconfig': {
      const { KubectlKubeconfigSource } = await import('../adapters/kubeconfig/kubectl-source.js');
      return new KubectlKubeconfigSource({ tenant: choice.tenant, host: choice.host }, contexts);
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
