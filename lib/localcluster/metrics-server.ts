/**
 * Resource metrics of the local plane (docs/metrics.md): a stock metrics-server on the host,
 * scraping kwok's simulated kubelet `/metrics/resource` (each Pod's usage from its annotations
 * `kwok.x-k8s.io/usage-cpu` and `kwok.x-k8s.io/usage-memory`), registered with the host
 * apiserver as `v1beta1.metrics.k8s.io`; and the objects that register an aggregated
 * `metrics.k8s.io` (the host's metrics-server, or the kubelet gateway for a tenant) with an
 * apiserver. The aggregator reaches a Service of type ExternalName at its `externalName` and the
 * APIService's port (`k8s.io/apiserver/pkg/util/proxy`, `ResolveCluster`), so a process on
 * loopback can be an aggregated API server without a Pod network.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exists, type Pki, signCertificate } from './pki.js';

const here = dirname(fileURLToPath(import.meta.url));
/** kwok's resource usage from Pod annotations and its kubelet `/metrics/resource` (kwok v0.8.0's kustomize/metrics). */
export const KWOK_METRICS = resolve(here, 'kwok-metrics.yaml');

/**
 * The Node annotation metrics-server v0.8 reads for a kubelet's resource metrics path
 * (`pkg/scraper/client/resource/client.go`); kwok serves each node's at this path.
 */
export const RESOURCE_METRICS_PATH_ANNOTATION = 'metrics.k8s.io/resource-metrics-path';

/** The path kwok serves node `name`'s `/metrics/resource` at (kwok's Metric `metrics-resource`). */
export function kwokResourceMetricsPath(name: string): string {
  return `/metrics/nodes/${name}/metrics/resource`;
}

/** The CN of the host apiserver's front-proxy (aggregator) client certificate. */
const FRONT_PROXY_CN = 'tenantplane-front-proxy';

/** The front-proxy client certificate of the host apiserver, in the state directory's `pki`. */
export function frontProxyPaths(pkiDir: string): { cert: string; key: string } {
  return {
    cert: join(pkiDir, 'front-proxy', `${FRONT_PROXY_CN}.crt`),
    key: join(pkiDir, 'front-proxy', `${FRONT_PROXY_CN}.key`),
  };
}

/** Signs (once per state directory) the host apiserver's front-proxy client certificate. */
export async function ensureFrontProxyCert(pkiDir: string, pki: Pki): Promise<void> {
  const paths = frontProxyPaths(pkiDir);
  if (await exists(paths.cert)) return;
  await mkdir(dirname(paths.cert), { recursive: true, mode: 0o700 });
  await signCertificate(pki, {
    dir: dirname(paths.cert),
    name: FRONT_PROXY_CN,
    subject: `/CN=${FRONT_PROXY_CN}`,
    extensions: 'extendedKeyUsage=clientAuth\n',
    days: 3650,
  });
}

/**
 * The host apiserver's aggregation layer: the client certificate it proxies to aggregated API
 * servers with, and how those check it (published in `kube-system/extension-apiserver-authentication`).
 * The local CA signs every local certificate, so only the front proxy's CN may assert a user.
 */
export function hostAggregationArgs(pkiDir: string, pki: Pki): string[] {
  const proxy = frontProxyPaths(pkiDir);
  return [
    `--proxy-client-cert-file=${proxy.cert}`,
    `--proxy-client-key-file=${proxy.key}`,
    `--requestheader-client-ca-file=${pki.caCert}`,
    `--requestheader-allowed-names=${FRONT_PROXY_CN}`,
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
  ];
}

/**
 * metrics-server of the host, as kwokctl runs it next to kwok: each node at its InternalIP and
 * the port its status names (kwok's), checked against the local CA (kwok serves the local
 * serving certificate). 10 s is the shortest resolution it takes.
 */
export function metricsServerArgs(kubeconfig: string, port: number, pki: Pki): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    '--kubelet-preferred-address-types=InternalIP',
    '--kubelet-use-node-status-port',
    `--kubelet-certificate-authority=${pki.caCert}`,
    '--metric-resolution=10s',
    // It must be shorter than the resolution; kwok answers on loopback at once.
    '--kubelet-request-timeout=5s',
    '--profiling=false',
  ];
}

/**
 * The tenant's Service for its `metrics.k8s.io` (the kubelet gateway): the aggregator checks the
 * gateway's certificate for `<name>.<namespace>.svc`, so the gateway's serving certificate names it.
 */
export const TENANT_METRICS_SERVICE = {
  namespace: 'kube-system',
  name: 'tenantplane-metrics',
} as const;

/** The TLS name the tenant apiserver checks the gateway's certificate for, as its metrics API. */
export const TENANT_METRICS_TLS_NAME = `${TENANT_METRICS_SERVICE.name}.${TENANT_METRICS_SERVICE.namespace}.svc`;

/** One object to create, and the collection it is POSTed to. */
export interface ApiObject {
  path: string;
  object: Record<string, unknown>;
}

/** Where an apiserver reaches an aggregated `metrics.k8s.io`. */
export interface MetricsApiTarget {
  /** The Service (ExternalName) the APIServices name: `<name>.<namespace>.svc` is the TLS name checked. */
  namespace: string;
  name: string;
  /** The server's address (an IP or a DNS name) and port. */
  address: string;
  port: number;
  versions: readonly string[];
  /** PEM of the CA that signs the server's certificate; without it TLS is not checked. */
  caBundle?: string;
}

/** The ExternalName Service and one APIService per version of `target`. */
export function metricsApiObjects(target: MetricsApiTarget): ApiObject[] {
  const { namespace, name } = target;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { type: 'ExternalName', externalName: target.address },
  };
  const tls = target.caBundle
    ? { caBundle: Buffer.from(target.caBundle).toString('base64') }
    : { insecureSkipTLSVerify: true };
  const apiServices = target.versions.map((version) => ({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.metrics.k8s.io` },
    spec: {
      group: 'metrics.k8s.io',
      version,
      service: { namespace, name, port: target.port },
      ...tls,
      groupPriorityMinimum: 100,
      versionPriority: version === 'v1' ? 200 : 100,
    },
  }));
  return [
    { path: `/api/v1/namespaces/${namespace}/services`, object: service },
    ...apiServices.map((object) => ({
      path: '/apis/apiregistration.k8s.io/v1/apiservices',
      object,
    })),
  ];
}
