/**
 * The command lines of the workload components, next to the apiservers of `daemons.ts`: on the
 * host kube-scheduler, kube-controller-manager and kwok (simulated nodes); in the tenant a
 * kube-controller-manager only, since a tenant's Pods are never meant to run there.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KWOK_METRICS } from './metrics-server.js';
import type { Pki } from './pki.js';

const here = dirname(fileURLToPath(import.meta.url));
/** kwok's stages (how simulated nodes and kubelets move objects along). */
export const KWOK_STAGES = resolve(here, 'kwok-stages.yaml');

/** The annotation marking the Nodes kwok plays; the one kwok's own docs use. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';

/** Pod IPs of a node without its own `spec.podCIDR` (the local nodes all have one). */
export const KWOK_DEFAULT_POD_CIDR = '10.244.0.0/24';

/**
 * The simulated nodes' address. Loopback on purpose: nothing here should ever send a packet
 * towards a node address (the apiserver would, for `kubectl logs` or `exec`), and if something
 * does it stays on this machine.
 */
export const KWOK_NODE_IP = '127.0.0.1';

/**
 * Tenant controllers off: those about nodes and volumes, which the host owns (the tenant has no
 * Nodes and no storage), and the Pod garbage collector, which would delete every tenant Pod whose
 * `spec.nodeName` names a host node the tenant does not have.
 */
const TENANT_DISABLED_CONTROLLERS = [
  'node-ipam-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'device-taint-eviction-controller',
  'ttl-controller',
  'pod-garbage-collector-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-attach-detach-controller',
  'persistentvolume-expander-controller',
];

/**
 * Host controllers off: the root CA publisher only. A real host has `kube-root-ca.crt` in every
 * namespace, but the engine's integration tests list whole host namespaces and expect only
 * tenantplane's copies there; once they filter to those, this list can go.
 */
const HOST_DISABLED_CONTROLLERS = ['root-ca-certificate-publisher-controller'];

/** Where and as what one workload component runs. */
export interface ComponentSpec {
  pki: Pki;
  /** The component's own kubeconfig for its cluster. */
  kubeconfig: string;
  /** The cluster it serves, for names and flags that differ between tenant and host. */
  cluster: 'tenant' | 'host';
  /** Its secure (health) port on loopback; unused by kwok. */
  port: number;
}

/**
 * Serving and delegated authentication/authorization as kubeadm sets them: the health endpoints
 * are always allowed, and the component checks other callers against its own apiserver.
 */
function servingArgs({ kubeconfig, port }: ComponentSpec): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    // One instance per cluster: leader election would only delay the start by a lease period.
    '--leader-elect=false',
    '--profiling=false',
  ];
}

/** kube-scheduler of the host. */
export function schedulerArgs(spec: ComponentSpec): string[] {
  return servingArgs(spec);
}

/**
 * kube-controller-manager: the default controllers on the host (with the host-path provisioner
 * for claims), the workload, namespace and service-account ones in the tenant. Each controller runs as its own
 * service account (`--use-service-account-credentials`), so it holds only its bootstrap role.
 */
export function controllerManagerArgs(spec: ComponentSpec): string[] {
  const off = spec.cluster === 'host' ? HOST_DISABLED_CONTROLLERS : TENANT_DISABLED_CONTROLLERS;
  const controllers = ['*', ...off.map((c) => `-${c}`)];
  return [
    ...servingArgs(spec),
    `--cluster-name=tenantplane-local-${spec.cluster}`,
    `--controllers=${controllers.join(',')}`,
    '--use-service-account-credentials=true',
    // The key whose public half the apiserver verifies tokens with (--service-account-key-file).
    `--service-account-private-key-file=${spec.pki.serviceAccounts[spec.cluster].key}`,
    // Published as `kube-root-ca.crt` in every namespace.
    `--root-ca-file=${spec.pki.caCert}`,
    ...(spec.cluster === 'host'
      ? ['--enable-hostpath-provisioner=true']
      : // The HPA controller reads the tenant's metrics.k8s.io (the kubelet gateway, docs/metrics.md);
        // every 5 s instead of 15 s, so a local autoscaler answers a change of usage quickly.
        ['--horizontal-pod-autoscaler-sync-period=5s']),
  ];
}

/**
 * kwok's kubelet API (logs, exec, attach, port-forward of its Pods), as the host apiserver reaches
 * it: every simulated node at {@link KWOK_NODE_IP}:`port` (the node status says the port).
 */
export interface KwokKubelet {
  port: number;
  /** Serving certificate and key (the host apiserver does not check them: no kubelet CA is set). */
  cert: string;
  key: string;
  /** The file of kwok's ClusterLogs and ClusterExec rules (`kwokKubeletConfig`). */
  config: string;
}

/**
 * kwok's ClusterLogs, ClusterAttach, ClusterExec and ClusterPortForward rules: every container's
 * log is `logsFile` (CRI log lines, followed), `attach` follows it from its end, `exec` runs the
 * command on this machine in `workDir` (a local plane only: every actor of it is the developer
 * running it), and every forwarded port is `cat` on this machine: the bytes sent come back.
 */
export function kwokKubeletConfig(logsFile: string, workDir: string): string {
  return `apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: tenantplane-local-logs
spec:
  logs:
  - logsFile: ${JSON.stringify(logsFile)}
    follow: true
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: tenantplane-local-exec
spec:
  execs:
  - local:
      workDir: ${JSON.stringify(workDir)}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterAttach
metadata:
  name: tenantplane-local-attach
spec:
  attaches:
  - logsFile: ${JSON.stringify(logsFile)}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata:
  name: tenantplane-local-port-forward
spec:
  forwards:
  - command: [cat]
`;
}

/** kwok, playing the kubelets of the Nodes annotated {@link KWOK_NODE_ANNOTATION}=fake. */
export function kwokArgs(kubeconfig: string, kubelet?: KwokKubelet): string[] {
  const serving = kubelet
    ? [
        `--config=${kubelet.config}`,
        `--server-address=${KWOK_NODE_IP}:${kubelet.port}`,
        `--node-port=${kubelet.port}`,
        `--tls-cert-file=${kubelet.cert}`,
        `--tls-private-key-file=${kubelet.key}`,
      ]
    : [];
  return [
    `--kubeconfig=${kubeconfig}`,
    `--config=${KWOK_STAGES}`,
    // Each Pod's usage from its annotations, served as each node's kubelet `/metrics/resource`.
    `--config=${KWOK_METRICS}`,
    ...serving,
    `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=fake`,
    `--cidr=${KWOK_DEFAULT_POD_CIDR}`,
    `--node-ip=${KWOK_NODE_IP}`,
    // Renewing each node's Lease keeps the node lifecycle controller from marking it NotReady.
    '--node-lease-duration-seconds=40',
  ];
}

/** kwok's private HOME: it also reads `~/.kwok/kwok.yaml`, and the user's must not leak in. */
export function kwokHome(stateDir: string): string {
  return join(stateDir, 'kwok-home');
}

/** kwok's environment: the caller's, with {@link kwokHome} as HOME. */
export function kwokEnv(stateDir: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: kwokHome(stateDir) };
}
