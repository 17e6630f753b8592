/** The kubelet gateway `npm start` runs beside the local clusters (lib/cli/start.ts). */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGateway, type Gateway, loadGatewayTenants } from '../gateway/index.js';
import { kubeletPkiPaths } from '../localcluster/kubelet-pki.js';
import { DEMO_HOST_NAMESPACE, DEMO_TENANT } from './demo.js';
import { messageOf } from './errors.js';

/**
 * The kubelet gateway of the local plane, for tenant `dev`, on 127.0.0.1 at the port of the first
 * run (kept in `<state>/gateway/port`: the TenantCluster names it, so the next run writes
 * nothing). `undefined`, with the reason said, when it cannot start (the port is taken, say).
 */
export async function startLocalGateway(
  stateDir: string,
  hostKubeconfig: string,
  say: (line: string) => void,
): Promise<{ gateway: Gateway; port: number } | undefined> {
  const dir = join(stateDir, 'gateway');
  const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));
  try {
    await mkdir(dir, { recursive: true });
    const config = join(dir, 'tenants.json');
    const tenant = { name: DEMO_TENANT, hostNamespace: DEMO_HOST_NAMESPACE };
    const files = { clientCA: kubelet.clientCaCert, hostKubeconfig };
    await writeFile(config, JSON.stringify({ tenants: [{ ...tenant, ...files }] }));
    const saved = Number(await readFile(join(dir, 'port'), 'utf8').catch(() => '0')) || 0;
    const gateway = createGateway({
      tenants: await loadGatewayTenants(config),
      cert: await readFile(kubelet.gatewayCert),
      key: await readFile(kubelet.gatewayKey),
    });
    const { port } = await gateway.listen(saved, '127.0.0.1');
    if (port !== saved) await writeFile(join(dir, 'port'), `${port}\n`);
    return { gateway, port };
  } catch (error) {
    say(`(The kubelet gateway did not start: ${messageOf(error)}; kubectl logs is not shown.)`);
    return undefined;
  }
}
