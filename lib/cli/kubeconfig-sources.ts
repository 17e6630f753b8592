/**
 * The kubeconfig source for a {@link KubeconfigChoice}. Every source is imported only when a
 * cluster is first opened: the AWS SDK, the local control plane and the YAML merging cost
 * startup time that `tenantplane name` or a usage error should never pay.
 */
import type { ClusterRole, KubeconfigSource } from '../ports/index.js';
import type { KubeconfigChoice } from './clusters.js';

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
      const { KubectlKubeconfigSource } = await import('./kubeconfig-merge.js');
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
