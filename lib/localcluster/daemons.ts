/**
 * The command lines of the local daemons. Flags that work without a network (after
 * controller-runtime's envtest): one etcd, and per cluster a kube-apiserver on loopback with its
 * own etcd prefix, RBAC, and no endpoint reconciler or ServiceAccount admission (no
 * controller-manager runs).
 */
import { join } from 'node:path';
import { kubeletPkiPaths } from './kubelet-pki.js';
import { hostAggregationArgs } from './metrics-server.js';
import type { Pki } from './pki.js';

/** etcd on loopback, data in `stateDir`; fsync off, since the data is throw-away or a demo. */
export function etcdArgs(stateDir: string, etcdPort: number, peerPort: number): string[] {
  return [
    '--name=tenantplane-local',
    `--data-dir=${join(stateDir, 'etcd')}`,
    `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
    `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=tenantplane-local=http://127.0.0.1:${peerPort}`,
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

/** The service range of every local apiserver, tenant and host alike (see apiServerArgs). */
export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';

/** Where and as what one kube-apiserver runs. */
export interface ApiServerSpec {
  stateDir: string;
  pki: Pki;
  name: 'tenant' | 'host';
  /** The cluster's position among the local clusters. */
  index: number;
  port: number;
  etcdPort: number;
  /** Its service range, when not {@link SERVICE_CLUSTER_IP_RANGE} (a test's mismatched tenant). */
  serviceRange?: string;
  /** More flags: the tenant's audit webhook (`wake.ts`). */
  extraArgs?: readonly string[];
}

/** One kube-apiserver of the local control plane. */
export function apiServerArgs(spec: ApiServerSpec): string[] {
  const { stateDir, pki, name, port, etcdPort } = spec;
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    `--etcd-prefix=/${name}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${pki.servingCert}`,
    `--tls-private-key-file=${pki.servingKey}`,
    `--client-ca-file=${pki.caCert}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${pki.serviceAccounts[name].pub}`,
    `--service-account-signing-key-file=${pki.serviceAccounts[name].key}`,
    '--authorization-mode=RBAC',
    // One range for tenant and host: a tenant Service's cluster IP is then one its host copy can
    // have (docs/names-and-addresses.md), which tenants that run workloads require.
    `--service-cluster-ip-range=${spec.serviceRange ?? SERVICE_CLUSTER_IP_RANGE}`,
    '--disable-admission-plugins=ServiceAccount',
    '--allow-privileged=true',
    '--profiling=false',
    `--cert-dir=${join(stateDir, 'pki', `certs-${name}`)}`,
    ...(name === 'tenant'
      ? tenantKubeletArgs(stateDir, pki)
      : hostAggregationArgs(join(stateDir, 'pki'), pki)),
    ...(spec.extraArgs ?? []),
  ];
}

/**
 * How the tenant apiserver calls the kubelets of its Nodes, which are the kubelet gateway
 * (docs/kubelet-gateway.md): with a client certificate of the tenant's own kubelet client CA,
 * checking the gateway's serving certificate against the local CA.
 */
function tenantKubeletArgs(stateDir: string, pki: Pki): string[] {
  const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));
  return [
    `--kubelet-client-certificate=${kubelet.clientCert}`,
    `--kubelet-client-key=${kubelet.clientKey}`,
    `--kubelet-certificate-authority=${pki.caCert}`,
    // The same certificate for its aggregated APIs: the gateway serves the tenant's
    // metrics.k8s.io (docs/metrics.md) and knows the tenant by the CA that issued it.
    `--proxy-client-cert-file=${kubelet.clientCert}`,
    `--proxy-client-key-file=${kubelet.clientKey}`,
  ];
}
