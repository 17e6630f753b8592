/**
 * The pinned Kubernetes release of the local control plane. Changing it rebuilds the binaries
 * into a new cache directory; the old one is left for `cluster:clean` or the operator.
 */
export const KUBERNETES_VERSION = '1.36.3';

/** Staging modules are published as `v0.<minor>.<patch>` twins of the release. */
export const STAGING_VERSION = `v0.${KUBERNETES_VERSION.split('.').slice(1).join('.')}`;

/** The Go packages built, per binary name. etcd comes at the version the release requires. */
export const BINARY_PACKAGES = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  etcd: 'go.etcd.io/etcd/server/v3',
} as const;

export type BinaryName = keyof typeof BINARY_PACKAGES;
