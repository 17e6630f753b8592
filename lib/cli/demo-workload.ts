/**
 * The workload of `npm start`'s sample tenant: a Deployment `shop/web` (3 replicas) that reads
 * ConfigMap `storefront` and Secret `storefront-credentials`, a Service and an Ingress in front of
 * it. The tenant's controller manager makes the Pods; a pass puts them on the host, whose
 * scheduler and kwok nodes run them; the next pass brings their status, nodes and Events back.
 */
import { type ClusterApi, EVENT, type KindRef, type KubeObject, POD } from '../ports/index.js';

export const WORKLOAD_NAMESPACE = 'shop';
export const WORKLOAD_NAME = 'web';
export const WORKLOAD_REPLICAS = 3;
/** The labels of the Deployment's Pods (and the Service's selector). */
export const WORKLOAD_LABELS = { app: WORKLOAD_NAME } as const;

const PART_OF = { 'app.kubernetes.io/part-of': 'tenantplane-demo' };
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const meta = (name: string) => ({
  name,
  namespace: WORKLOAD_NAMESPACE,
  labels: { ...PART_OF },
});

/** The workload samples, in creation order (what they refer to first). */
export function workloadObjects(): KubeObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta('storefront-credentials'),
      type: 'Opaque',
      // A demo value, not a credential.
      data: { 'api-key': b64('demo-not-a-real-key') },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(WORKLOAD_NAME),
      spec: {
        replicas: WORKLOAD_REPLICAS,
        selector: { matchLabels: { ...WORKLOAD_LABELS } },
        template: {
          metadata: { labels: { ...WORKLOAD_LABELS, ...PART_OF } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.27',
                ports: [{ containerPort: 80, name: 'http' }],
                envFrom: [{ configMapRef: { name: 'storefront' } }],
                env: [
                  {
                    name: 'GATEWAY_KEY',
                    valueFrom: {
                      secretKeyRef: { name: 'storefront-credentials', key: 'api-key' },
                    },
                  },
                ],
                resources: { requests: { cpu: '10m', memory: '16Mi' } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(WORKLOAD_NAME),
      spec: {
        selector: { ...WORKLOAD_LABELS },
        ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta(WORKLOAD_NAME),
      spec: {
        rules: [
          {
            host: 'shop.dev.example.invalid',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: WORKLOAD_NAME, port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
  ];
}

/** The kinds the sample TenantCluster syncs: what the workload needs on the host. */
export const DEMO_TO_HOST: readonly KindRef[] = [
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'v1', kind: 'Secret' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
  POD,
];

const selector = Object.entries(WORKLOAD_LABELS)
  .map(([key, value]) => `${key}=${value}`)
  .join(',');

/** The workload's Pods in `namespace` of `api` that are not being deleted. */
export async function workloadPods(api: ClusterApi, namespace: string): Promise<KubeObject[]> {
  const page = await api.list(POD, { namespace, labelSelector: selector });
  return page.items.filter((pod) => !pod.metadata.deletionTimestamp);
}

/** Whether `pod` runs: phase Running with an IP and a node. */
export function isRunning(pod: KubeObject): boolean {
  const status = pod.status as { phase?: string; podIP?: string } | undefined;
  const spec = pod.spec as { nodeName?: string } | undefined;
  return status?.phase === 'Running' && Boolean(status.podIP) && Boolean(spec?.nodeName);
}

/**
 * Polls `check` every half second until it returns a value, or `timeoutMs` passes (then
 * `undefined`: the demo says what it waited for and goes on).
 */
export async function poll<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Whether the tenant has the sample Deployment (a reader may have deleted it). */
export async function hostWorkloadWanted(tenantApi: ClusterApi): Promise<boolean> {
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment' };
  return (await tenantApi.get(deployment, WORKLOAD_NAMESPACE, WORKLOAD_NAME)) !== undefined;
}

/**
 * Waits (up to 60 s) for the tenant's controller manager to make the Deployment's Pods and the
 * namespace's `default` service account (whose token the Pods get).
 */
export async function tenantPodsMade(tenantApi: ClusterApi): Promise<boolean> {
  const account = { apiVersion: 'v1', kind: 'ServiceAccount' };
  const made = await poll(async () => {
    const pods = await workloadPods(tenantApi, WORKLOAD_NAMESPACE);
    if (pods.length < WORKLOAD_REPLICAS) return undefined;
    return (await tenantApi.get(account, WORKLOAD_NAMESPACE, 'default')) ? true : undefined;
  }, 60_000);
  return made === true;
}

/**
 * Whether every workload Pod in `namespace` of `api` runs and has its `Scheduled` Event: on the
 * host, the scheduler's own; in the tenant, the copy a pass made. The host scheduler writes that
 * Event after it binds the Pod, through a buffered recorder, so a Pod can run (and a pass bring
 * its status back) before the Event is there to be copied.
 */
export async function runningAndScheduled(api: ClusterApi, namespace: string): Promise<boolean> {
  const pods = await workloadPods(api, namespace);
  if (pods.length < WORKLOAD_REPLICAS || !pods.every(isRunning)) return false;
  const events = await api.list(EVENT, {
    namespace,
    fieldSelector: 'involvedObject.kind=Pod,reason=Scheduled',
  });
  const scheduled = new Set(
    events.items.map((e) => (e.involvedObject as { name?: string } | undefined)?.name),
  );
  return pods.every((pod) => scheduled.has(pod.metadata.name));
}

/** Ready endpoints in the EndpointSlices of host Service `service` in `namespace`. */
export async function readyEndpoints(
  hostApi: ClusterApi,
  namespace: string,
  service: string,
): Promise<number> {
  const slices = await hostApi.list(
    { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
    { namespace, labelSelector: `kubernetes.io/service-name=${service}` },
  );
  let ready = 0;
  for (const slice of slices.items) {
    const endpoints = (slice.endpoints ?? []) as { conditions?: { ready?: boolean } }[];
    ready += endpoints.filter((e) => e.conditions?.ready === true).length;
  }
  return ready;
}
