/**
 * The kubelet gateway `npm start` runs beside the local clusters (lib/cli/start.ts), registered
 * with the tenant apiserver as its `metrics.k8s.io` (docs/metrics.md) while it runs, so
 * `kubectl top` works in the tenant of `npm start -- --follow` as it does on a deployed tenant.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGateway, type Gateway, loadGatewayTenants } from '../gateway/index.js';
import { kubeletPkiPaths } from '../localcluster/kubelet-pki.js';
import { ensurePki } from '../localcluster/pki.js';
import { registerTenantMetrics, unregisterTenantMetrics } from '../localcluster/tenant-metrics.js';
import { DEMO_HOST_NAMESPACE, DEMO_TENANT } from './demo.js';
import { messageOf } from './errors.js';

/** The local gateway: its port, whether it serves the tenant's metrics, and how it stops. */
export interface LocalGateway {
  gateway: Gateway;
  port: number;
  /** `metrics.k8s.io` of the tenant is the gateway's while it runs. */
  metrics: boolean;
  /** Takes the metrics registration back (a dead one would fail every discovery), then stops. */
  close(): Promise<void>;
}

/**
 * The kubelet gateway of the local plane, for `tenant` (`dev`), on 127.0.0.1 at the port of the first
 * run (kept in `<state>/gateway/port`: the TenantCluster names it, so the next run writes
 * nothing), registered as the tenant's `metrics.k8s.io` at `tenantServer`. `undefined`, with the
 * reason said, when it cannot start (the port is taken, say); without the registration, said too.
 */
export async function startLocalGateway(
  stateDir: string,
  hostKubeconfig: string,
  tenantServer: string,
  say: (line: string) => void,
  tenant: { name: string; hostNamespace: string } = {
    name: DEMO_TENANT,
    hostNamespace: DEMO_HOST_NAMESPACE,
  },
): Promise<LocalGateway | undefined> {
  const dir = join(stateDir, 'gateway');
  const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));
  let gateway: Gateway | undefined;
  let port: number;
  try {
    await mkdir(dir, { recursive: true });
    const config = join(dir, 'tenants.json');
    const files = { clientCA: kubelet.clientCaCert, hostKubeconfig };
    await writeFile(config, JSON.stringify({ tenants: [{ ...tenant, ...files }] }));
    const saved = Number(await readFile(join(dir, 'port'), 'utf8').catch(() => '0')) || 0;
    gateway = createGateway({
      tenants: await loadGatewayTenants(config),
      cert: await readFile(kubelet.gatewayCert),
      key: await readFile(kubelet.gatewayKey),
    });
    port = (await gateway.listen(saved, '127.0.0.1')).port;
    if (port !== saved) await writeFile(join(dir, 'port'), `${port}\n`);
  } catch (error) {
    await gateway?.close();
    say(`(The kubelet gateway did not start: ${messageOf(error)}; kubectl logs is not shown.)`);
    return undefined;
  }
  const served = gateway;
  const pki = ensurePki(join(stateDir, 'pki'));
  const metrics = await pki
    .then((read) => registerTenantMetrics(tenantServer, read, { address: '127.0.0.1', port }))
    .then(() => true)
    .catch((error: unknown) => {
      say(`(The tenant's metrics API was not registered: ${messageOf(error)}; kubectl top fails.)`);
      return false;
    });
  return {
    gateway: served,
    port,
    metrics,
    async close() {
      if (metrics) await unregisterTenantMetrics(tenantServer, await pki).catch(() => undefined);
      await served.close();
    },
  };
}
