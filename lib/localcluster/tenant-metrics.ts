/**
 * The local tenant's `metrics.k8s.io` (docs/metrics.md): the kubelet gateway registered with the
 * tenant apiserver as an aggregated API, v1 and v1beta1, the way deploy/tenant-metrics does it on
 * a real tenant. The tenant apiserver proxies to it with its kubelet client certificate
 * (`--proxy-client-cert-file`, daemons.ts), which is how the gateway knows the tenant, and checks
 * the gateway's serving certificate (signed by the local CA) for the Service's name.
 */
import { readFile } from 'node:fs/promises';
import { LocalClusterError } from './errors.js';
import { metricsApiObjects, TENANT_METRICS_SERVICE } from './metrics-server.js';
import type { Pki } from './pki.js';
import { adminTls, send } from './readiness.js';

/** The versions the gateway serves (lib/gateway/metrics-routes.ts). */
const VERSIONS = ['v1', 'v1beta1'] as const;

function objects(address: string, port: number, caBundle?: string) {
  return metricsApiObjects({
    ...TENANT_METRICS_SERVICE,
    address,
    port,
    versions: VERSIONS,
    caBundle,
  });
}

/**
 * Registers the gateway at `address`:`port` as the tenant's `metrics.k8s.io`, replacing an earlier
 * registration (a gateway of an earlier start has another port).
 */
export async function registerTenantMetrics(
  tenantServer: string,
  pki: Pki,
  gateway: { address: string; port: number },
): Promise<void> {
  const tls = adminTls(pki);
  const ca = await readFile(pki.caCert, 'utf8');
  await unregisterTenantMetrics(tenantServer, pki);
  for (const { path, object } of objects(gateway.address, gateway.port, ca)) {
    const res = await send('POST', `${tenantServer}${path}`, tls, object);
    if (res.status !== 201)
      throw new LocalClusterError(
        `registering the tenant's metrics API: ${res.status} ${res.body}`,
      );
  }
}

/** Removes the tenant's `metrics.k8s.io` registration (none is fine). */
export async function unregisterTenantMetrics(tenantServer: string, pki: Pki): Promise<void> {
  const tls = adminTls(pki);
  for (const { path, object } of objects('127.0.0.1', 1)) {
    const name = (object.metadata as { name: string }).name;
    const res = await send('DELETE', `${tenantServer}${path}/${name}`, tls);
    if (res.status !== 200 && res.status !== 404)
      throw new LocalClusterError(`removing the tenant's metrics API: ${res.status} ${res.body}`);
  }
}
