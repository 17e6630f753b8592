/**
 * The sample world of `npm start`: TenantCluster `dev` on the local host cluster and a few tenant
 * objects in several virtual namespaces, created only the first time (create-if-absent, and not at
 * all once the TenantCluster exists, so a reader's edits and deletes are never undone).
 */
import { hostName, KubernetesKeys } from '../engine/index.js';
import {
  type ClusterApi,
  isClusterError,
  type KubeObject,
  NAMESPACE,
  TENANT_CLUSTER,
} from '../ports/index.js';
import { DEMO_TO_HOST, workloadObjects } from './demo-workload.js';

export const DEMO_TENANT = 'dev';
export const DEMO_HOST_NAMESPACE = 'tenant-dev';

/** Virtual namespaces the samples live in (`default` and `kube-system` always exist, but are ensured too). */
export const SAMPLE_NAMESPACES = ['default', 'shop', 'billing', 'kube-system'] as const;

/** A name long enough that its host name is hashed. */
export const LONG_SAMPLE_NAME = 'a-configmap-with-a-name-long-enough-to-be-hashed-on-the-host';

/** The object in a tenant system namespace that is never synced. */
export const SYSTEM_SAMPLE = {
  namespace: 'kube-system',
  name: 'tenant-internal-settings',
} as const;

/** The object `npm start` suggests editing (to see an Update). */
export const EDIT_SAMPLE = { namespace: 'shop', name: 'storefront' } as const;
/** The object `npm start` suggests deleting (to see a Delete). */
export const DELETE_SAMPLE = { namespace: 'billing', name: 'invoice-template' } as const;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'tenantplane-demo' } },
    data,
  };
}

/** The sample tenant objects, in creation order. */
export function sampleObjects(): KubeObject[] {
  return [
    configMap('default', 'app-settings', {
      greeting: 'hello from the tenant cluster',
      'log-level': 'info',
    }),
    configMap(EDIT_SAMPLE.namespace, EDIT_SAMPLE.name, { theme: 'dark', currency: 'EUR' }),
    configMap('shop', LONG_SAMPLE_NAME, {
      note: 'its host name is longer than 63 characters, so tenantplane hashes it',
    }),
    configMap(DELETE_SAMPLE.namespace, DELETE_SAMPLE.name, {
      'template.txt': 'Invoice {{number}} for {{customer}}',
    }),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'payment-gateway',
        namespace: 'billing',
        labels: { 'app.kubernetes.io/part-of': 'tenantplane-demo' },
      },
      type: 'Opaque',
      // A demo value, not a credential.
      data: {
        endpoint: b64('https://payments.example.invalid'),
        'api-key': b64('demo-not-a-real-key'),
      },
    },
    configMap(SYSTEM_SAMPLE.namespace, SYSTEM_SAMPLE.name, {
      note: 'kube-system belongs to the tenant control plane; tenantplane never syncs it',
    }),
    ...workloadObjects(),
  ];
}

/**
 * The TenantCluster `dev`: ConfigMaps, Secrets and the workload kinds (Services, Ingresses, Pods),
 * with every host Event about a copy shown in the tenant (`eventsBack: All`), so the tenant Pods'
 * Events tell where the host scheduled them, and its Ingresses' hosts under `dev.example.invalid`
 * (a host Ingress may claim no host the policy does not name). With `kubeletGateway`, its Nodes
 * name that kubelet gateway (docs/kubelet-gateway.md), so `kubectl logs` of its Pods works.
 */
export function demoTenantCluster(kubeletGateway?: { address: string; port: number }): KubeObject {
  return {
    apiVersion: TENANT_CLUSTER.apiVersion,
    kind: TENANT_CLUSTER.kind,
    metadata: { name: DEMO_TENANT },
    spec: {
      hostNamespace: DEMO_HOST_NAMESPACE,
      toHost: DEMO_TO_HOST.map(({ apiVersion, kind }) => ({ apiVersion, kind })),
      workloads: {
        eventsBack: 'All',
        ingresses: { hostSuffixes: ['.dev.example.invalid'] },
        ...(kubeletGateway ? { kubeletGateway } : {}),
      },
    },
  };
}

/** Creates `object` unless it exists (one GET; a POST only when absent). True when created. */
export async function createIfAbsent(api: ClusterApi, object: KubeObject): Promise<boolean> {
  const { namespace, name } = object.metadata;
  const existing = await api.get(object, namespace, name);
  if (existing) return false;
  try {
    await api.create(object);
    return true;
  } catch (error) {
    if (isClusterError(error, 'AlreadyExists')) return false;
    throw error;
  }
}

/** A Namespace object named `name`, for {@link createIfAbsent}. */
export function namespaceObject(name: string): KubeObject {
  return { apiVersion: NAMESPACE.apiVersion, kind: NAMESPACE.kind, metadata: { name } };
}

export interface SeedResult {
  /** True when the TenantCluster did not exist yet (the first run). */
  firstRun: boolean;
  /** `Kind namespace/name` of everything created. */
  created: string[];
}

/**
 * Ensures the host namespace, and on the first run (no TenantCluster `dev` yet) the sample
 * namespaces and objects and then the TenantCluster itself. Creating the TenantCluster last makes
 * an interrupted first run simply seed again next time.
 */
export async function seedDemo(
  tenantApi: ClusterApi,
  hostApi: ClusterApi,
  kubeletGateway?: { address: string; port: number },
): Promise<SeedResult> {
  const created: string[] = [];
  // Labelled as deploy/rbac/host-cluster/host-cluster.yaml labels a host namespace: the host's own Pod
  // Security admission is the second wall behind the engine's check of every host Pod.
  const hostNamespace = namespaceObject(DEMO_HOST_NAMESPACE);
  hostNamespace.metadata.labels = { [KubernetesKeys.PodSecurityEnforce]: 'baseline' };
  if (await createIfAbsent(hostApi, hostNamespace)) {
    created.push(`host Namespace ${DEMO_HOST_NAMESPACE}`);
  }
  const existing = await hostApi.get(TENANT_CLUSTER, undefined, DEMO_TENANT);
  if (existing) return { firstRun: false, created };
  for (const ns of SAMPLE_NAMESPACES) {
    if (await createIfAbsent(tenantApi, namespaceObject(ns)))
      created.push(`tenant Namespace ${ns}`);
  }
  for (const object of sampleObjects()) {
    if (await createIfAbsent(tenantApi, object)) {
      created.push(`tenant ${object.kind} ${object.metadata.namespace}/${object.metadata.name}`);
    }
  }
  if (await createIfAbsent(hostApi, demoTenantCluster(kubeletGateway))) {
    created.push(`host TenantCluster ${DEMO_TENANT} (hostNamespace ${DEMO_HOST_NAMESPACE})`);
  }
  return { firstRun: true, created };
}

/** The host name of a sample. */
export function demoHostName(namespace: string, name: string): string {
  return hostName(name, namespace, DEMO_TENANT);
}

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
