/** The TenantCluster CRD the local host gets: the very file operators apply to real hosts. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The CRD manifest operators apply to real clusters; the local host gets the same file. */
export const TENANT_CLUSTER_CRD = resolve(
  here,
  '../../deploy/crds/tenantclusters.tenantplane.io.yaml',
);

/**
 * Waits (up to 60 s) for CRDs (`crd/<name>`; by default the TenantCluster's) to be Established. `kubectl wait` fails at once,
 * rather than waiting, when it reads the CRD before the apiserver gave it any condition
 * (".status.conditions accessor error: <nil>"): that answer is asked again.
 */
export async function waitEstablished(
  kubectl: (...args: string[]) => Promise<string>,
  crds: readonly string[] = ['crd/tenantclusters.tenantplane.io'],
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await kubectl('wait', '--for=condition=Established', ...crds, '--timeout=60s');
      return;
    } catch (error) {
      const early = error instanceof Error && error.message.includes('accessor error');
      if (!early || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
