/**
 * The pinned Kubernetes release of the local control plane. Changing it rebuilds the binaries
 * into a new cache directory; the old one is left for `cluster:clean` or the operator.
 */
export const KUBERNETES_VERSION = '1.37.2';

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

export type KubernetesBinaryName = keyof typeof BINARY_PACKAGES;
export type BinaryName = KubernetesBinaryName | 'kwok';
