/**
 * The Gateway API CRDs of the local plane: the standard channel of `sigs.k8s.io/gateway-api`,
 * read from the Go module itself (the module cache keeps it, like the binaries' sources), installed
 * on the host and on the tenant apiserver. The host serves Gateways a tenant's routes attach to;
 * the tenant serves the routes a tenant writes.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TENANT_CLUSTER_CRD, waitEstablished } from './crd.js';
import { LocalClusterError } from './errors.js';
import { goEnv } from './go-build.js';
import { cacheRoot } from './paths.js';
import { runCommand } from './run.js';

export const GATEWAY_API_MODULE = 'sigs.k8s.io/gateway-api';
export const GATEWAY_API_VERSION = 'v1.6.3';

/**
 * The CRDs installed, by plural: the standard channel's GatewayClass, Gateway, HTTPRoute,
 * GRPCRoute, ReferenceGrant and TLSRoute (standard since v1.5). The channel's TCP/UDP routes,
 * ListenerSets and BackendTLSPolicies are left out: the engine syncs none of them.
 */
export const GATEWAY_API_CRDS = [
  'gatewayclasses',
  'gateways',
  'httproutes',
  'grpcroutes',
  'referencegrants',
  'tlsroutes',
] as const;

/**
 * The directory of the standard channel's CRD manifests in the module cache, downloading the
 * module on first use (`go mod download`, which reuses the cache after that).
 */
export async function gatewayApiCrdDir(log: (line: string) => void = () => {}): Promise<string> {
  const dir = join(cacheRoot(), `gateway-api-${GATEWAY_API_VERSION}`);
  await mkdir(dir, { recursive: true });
  log(`resolving ${GATEWAY_API_MODULE} ${GATEWAY_API_VERSION} (the Gateway API CRDs)`);
  const out = await runCommand(
    'go',
    ['mod', 'download', '-json', `${GATEWAY_API_MODULE}@${GATEWAY_API_VERSION}`],
    { cwd: dir, env: goEnv() },
  );
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) {
    throw new LocalClusterError(
      `go mod download ${GATEWAY_API_MODULE}@${GATEWAY_API_VERSION}: ${info.Error ?? 'no module directory'}`,
    );
  }
  return join(info.Dir, 'config', 'crd', 'standard');
}

/**
 * Installs the CRDs of {@link GATEWAY_API_CRDS} from `dir` with `kubectl` (one cluster) and waits
 * until they are Established. Server-side apply: the HTTPRoute CRD (about 430 kB) is larger than
 * the last-applied annotation a client-side apply would write may be.
 */
export async function installGatewayApiCrds(
  kubectl: (...args: string[]) => Promise<string>,
  dir: string,
): Promise<void> {
  const files = GATEWAY_API_CRDS.flatMap((plural) => [
    '-f',
    join(dir, `gateway.networking.k8s.io_${plural}.yaml`),
  ]);
  await kubectl('apply', '--server-side', '--force-conflicts', ...files);
  await waitEstablished(
    kubectl,
    GATEWAY_API_CRDS.map((plural) => `crd/${plural}.gateway.networking.k8s.io`),
  );
}

/**
 * Installs the plane's CRDs: the TenantCluster CRD on the host, the Gateway API CRDs on both
 * apiservers. `kubectlOf` runs kubectl against one of them.
 */
export async function installPlaneCrds(
  kubectlOf: (cluster: 'tenant' | 'host') => (...args: string[]) => Promise<string>,
  log: (line: string) => void,
): Promise<void> {
  const host = kubectlOf('host');
  await host('apply', '-f', TENANT_CLUSTER_CRD);
  await waitEstablished(host);
  const dir = await gatewayApiCrdDir(log);
  await Promise.all(
    (['tenant', 'host'] as const).map((cluster) => installGatewayApiCrds(kubectlOf(cluster), dir)),
  );
}
