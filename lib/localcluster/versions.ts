/**
 * The pinned Kubernetes release of the local control plane, and always of its tenant side.
 * Changing it rebuilds the binaries into a new cache directory; the old one is left for
 * `cluster:clean` or the operator.
 */
export const KUBERNETES_VERSION = '1.37.2';

/** The variable that picks another release for the local host (docs/versions.md). */
export const KUBERNETES_VERSION_ENV = 'TENANTPLANE_KUBERNETES_VERSION';

/**
 * The oldest host minor the local plane builds: the oldest release of EKS extended support
 * whose module the Go module proxy serves (docs/versions.md).
 */
export const OLDEST_HOST_MINOR = 33;

/** Staging modules are published as `v0.<minor>.<patch>` twins of the release. */
export const STAGING_VERSION = `v0.${KUBERNETES_VERSION.split('.').slice(1).join('.')}`;

/**
 * The Go packages built from the release's wrapper module, per binary name. etcd comes at the
 * version the release requires.
 */
export const BINARY_PACKAGES = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  etcd: 'go.etcd.io/etcd/server/v3',
  'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
} as const;

/**
 * kwok (simulated nodes and kubelets) is built in a module of its own: it requires newer shared
 * modules (otel, grpc, ...) than the Kubernetes release pins, and mixing them would change what
 * the release's binaries are built from.
 */
export const KWOK_VERSION = '0.8.0';
export const KWOK_MODULE = 'sigs.k8s.io/kwok';
export const KWOK_PACKAGE = 'sigs.k8s.io/kwok/cmd/kwok';

/**
 * CoreDNS, the local stand-in of the tenant DNS Pod (docs/tenant-dns.md): the newest release the
 * Go of this machine builds, in a module of its own for the same reason as kwok. The Deployment
 * of deploy/tenant-dns runs the image kubeadm 1.37 installs (1.14.6); the Corefile uses only
 * plugins both have.
 */
export const COREDNS_VERSION = '1.15.0';
export const COREDNS_MODULE = 'github.com/coredns/coredns';
/** The module's root package is CoreDNS's `main`, with the plugins of its plugin.cfg compiled in. */
export const COREDNS_PACKAGE = 'github.com/coredns/coredns';

/**
 * metrics-server, the stock server of `metrics.k8s.io` on the local host (docs/metrics.md): it
 * scrapes kwok's simulated kubelet `/metrics/resource`. In a module of its own for the same reason
 * as kwok.
 */
export const METRICS_SERVER_VERSION = '0.8.0';
export const METRICS_SERVER_MODULE = 'sigs.k8s.io/metrics-server';
export const METRICS_SERVER_PACKAGE = 'sigs.k8s.io/metrics-server/cmd/metrics-server';

export type KubernetesBinaryName = keyof typeof BINARY_PACKAGES;
/** The binaries built in wrapper modules of their own, each keyed by its own version. */
export type StandaloneBinaryName = 'kwok' | 'coredns' | 'metrics-server';
export type BinaryName = KubernetesBinaryName | StandaloneBinaryName;
