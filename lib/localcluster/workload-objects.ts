/**
 * The objects a host needs before it can run workloads: the simulated Nodes kwok plays and a
 * default StorageClass the controller manager's host-path provisioner serves.
 */
import { kwokResourceMetricsPath, RESOURCE_METRICS_PATH_ANNOTATION } from './metrics-server.js';
import { KWOK_NODE_ANNOTATION } from './workload-daemons.js';

/** How many simulated nodes the host has: enough for spreading and anti-affinity to mean something. */
export const KWOK_NODE_COUNT = 3;

/** Names of the host's simulated nodes. */
export function kwokNodeNames(): string[] {
  return Array.from({ length: KWOK_NODE_COUNT }, (_, i) => `kwok-node-${i}`);
}

/** The default StorageClass of the host; claims without a class get it, as on kind or minikube. */
export const LOCAL_STORAGE_CLASS = 'standard';

/** One object to create, and the collection it is POSTed to. */
export interface HostObject {
  path: string;
  object: Record<string, unknown>;
}

/**
 * The Nodes and the StorageClass. Created, never updated: a restarted plane whose etcd data was
 * kept already has them (and a `409 AlreadyExists` means just that).
 */
export function hostWorkloadObjects(): HostObject[] {
  const nodes = kwokNodeNames().map((name, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: {
        [KWOK_NODE_ANNOTATION]: 'fake',
        'node.alpha.kubernetes.io/ttl': '0',
        // Where metrics-server finds this node's simulated `/metrics/resource` on kwok.
        [RESOURCE_METRICS_PATH_ANNOTATION]: kwokResourceMetricsPath(name),
      },
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/hostname': name,
        'topology.kubernetes.io/zone': `local-${String.fromCharCode(97 + i)}`,
        type: 'kwok',
      },
    },
    // A Pod CIDR of its own per node, so Pod IPs are unique across the host, as with node-ipam.
    spec: { podCIDR: `10.244.${i + 1}.0/24`, podCIDRs: [`10.244.${i + 1}.0/24`] },
  }));
  const storageClass = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: LOCAL_STORAGE_CLASS,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    // kube-controller-manager --enable-hostpath-provisioner: a directory under /tmp/hostpath_pv.
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
    // Immediate, so a claim binds without a Pod, as the tests of claims expect.
    volumeBindingMode: 'Immediate',
  };
  return [
    ...nodes.map((object) => ({ path: '/api/v1/nodes', object })),
    { path: '/apis/storage.k8s.io/v1/storageclasses', object: storageClass },
  ];
}
