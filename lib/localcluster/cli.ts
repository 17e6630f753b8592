/**
 * `npm run cluster:build | cluster:up | cluster:down`: the local tenant + host control plane.
 */
import { join, relative } from 'node:path';
import { ensureBinaries } from './binaries.js';
import { readRunningControlPlane, stopControlPlane } from './control-plane.js';
import { gatewayApiCrdDir } from './gateway-api.js';
import { hostKubernetesVersion } from './host-version.js';
import { ensureLocalClusters } from './index.js';
import { defaultStateDir } from './paths.js';
import { KUBERNETES_VERSION } from './versions.js';
import { kwokNodeNames } from './workload-objects.js';

const log = (line: string) => console.error(`[local] ${line}`);

async function main(command: string | undefined): Promise<number> {
  const stateDir = defaultStateDir();
  switch (command) {
    case 'build': {
      // The tenant side always runs the pinned release; the host the one picked, if another.
      const host = hostKubernetesVersion();
      for (const version of new Set([KUBERNETES_VERSION, host])) {
        const paths = await ensureBinaries({ version, log });
        for (const [name, path] of Object.entries(paths)) console.log(`${name}\t${path}`);
      }
      console.log(`gateway-api-crds\t${await gatewayApiCrdDir(log)}`);
      return 0;
    }
    case 'up': {
      const state = await ensureLocalClusters({ log });
      const kubectl = state.binaries.kubectl;
      const rel = relative(process.cwd(), kubectl);
      console.log(
        `Local control plane (Kubernetes v${state.version}) is running; state in ${stateDir}`,
      );
      console.log(
        `  tenant cluster: ${state.clusters.tenant.server}  kubeconfig ${state.clusters.tenant.kubeconfig}`,
      );
      console.log(
        `  host cluster:   ${state.clusters.host.server}  kubeconfig ${state.clusters.host.kubeconfig}`,
      );
      if (state.clusters.tenant.dns) {
        console.log(
          `  tenant DNS:     ${state.clusters.tenant.dns} (CoreDNS, the Corefile of deploy/tenant-dns; UDP and TCP)`,
        );
      }
      if (state.components.length > 0) {
        console.log(
          `  the host schedules Pods onto simulated nodes (${kwokNodeNames().join(', ')}); the tenant has a controller manager and no scheduler`,
        );
        console.log(`  component logs in ${join(stateDir, 'logs')}`);
      }
      console.log('Use them with the built kubectl:');
      console.log(
        `  ${rel.startsWith('..') ? kubectl : rel} --kubeconfig ${state.clusters.tenant.kubeconfig} get configmaps -A`,
      );
      console.log(`  ${kubectl} --kubeconfig ${state.clusters.host.kubeconfig} get tenantclusters`);
      console.log('Stop them with: npm run cluster:down');
      return 0;
    }
    case 'down': {
      const stopped = await stopControlPlane(stateDir);
      console.log(
        stopped
          ? 'Local control plane stopped (data kept).'
          : 'No local control plane was running.',
      );
      return 0;
    }
    case 'status': {
      const state = await readRunningControlPlane(stateDir);
      if (!state) {
        console.log('No local control plane is running.');
        return 1;
      }
      console.log(JSON.stringify(state, null, 2));
      return 0;
    }
    default:
      console.error('usage: tsx lib/localcluster/cli.ts build|up|down|status');
      return 2;
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
