// jest loads global setup outside its transform pipeline, so the TypeScript control plane is
// imported through tsx, which resolves the sources' `.js` specifiers to their `.ts` files.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

/**
 * Boots a fresh tenant + host control plane once per test run, in a throw-away state directory,
 * tied to this process so a killed run leaves nothing behind. A control plane that cannot start
 * fails the run: integration tests never skip.
 */
export default async function globalSetup() {
  const { startControlPlane } = await tsImport('../../lib/localcluster/index.ts', import.meta.url);
  const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-test-'));
  const t0 = Date.now();
  const state = await startControlPlane({
    stateDir,
    tieToThisProcess: true,
    removeStateDirWhenOrphaned: true,
    log: (line) => process.stderr.write(`[local] ${line}\n`),
  });
  process.stderr.write(`[local] control plane ready in ${Date.now() - t0} ms\n`);
  process.env.TENANTPLANE_TEST_STATE_DIR = stateDir;
  process.env.TENANTPLANE_TENANT_KUBECONFIG = state.clusters.tenant.kubeconfig;
  process.env.TENANTPLANE_HOST_KUBECONFIG = state.clusters.host.kubeconfig;
  process.env.TENANTPLANE_KUBECTL = state.binaries.kubectl;
  process.env.TENANTPLANE_KUBERNETES_VERSION = state.version;
  // The local tenant DNS (CoreDNS); test/integration/support/dns.ts fails the tests without it.
  process.env.TENANTPLANE_TENANT_DNS = state.clusters.tenant.dns ?? '';
}
