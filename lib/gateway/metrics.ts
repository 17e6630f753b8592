/**
 * The gateway as the tenant's `metrics.k8s.io` (docs/metrics.md): answers a tenant apiserver's
 * forwarded request from the host's resource metrics of the tenant's Pod copies, read with the
 * tenant's own host identity in its host namespace only. Every answer is in the tenant's names:
 * a host Pod counts only when its reverse mapping names this tenant and a Pod (so no copy of
 * another tenant, no foreign Pod, ever shows), its name and namespace are the tenant's, its
 * labels the tenant's, its containers the tenant Pod's own. A Node's usage is the sum of this
 * tenant's Pods on it: the rest of the node is other tenants' business.
 */
import type { ServerResponse } from 'node:http';
import {
  hostName,
  Labels,
  recordedTenantContainers,
  reverseLookup,
  tenantCopySelector,
} from '../engine/index.js';
import type { KubeObject } from '../ports/index.js';
import type { GatewayTenant } from './config.js';
import {
  type ContainerUsage,
  type HostPodMetrics,
  METRICS_GROUP,
  type MetricsRequest,
  type MetricsVersion,
  metricsList,
  resourceList,
  statusFailure,
  sumQuantities,
  tenantLabels,
} from './metrics-routes.js';
import { HostStatusError } from './upstream.js';

/** How long the host reads of one answer may take. */
const READ_TIMEOUT_MS = 10_000;

/** A tenant Pod's metrics, joined with its host copy. */
interface TenantPodMetrics {
  namespace: string;
  name: string;
  node?: string;
  labels: Record<string, string>;
  metrics: HostPodMetrics;
}

function answer(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The host list at `path`, its items (a 404 is none). */
async function hostItems<T>(
  tenant: GatewayTenant,
  path: string,
  signal: AbortSignal,
): Promise<T[]> {
  const list = await tenant.host.getJson(path, signal);
  const items = (list as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? (items as T[]) : [];
}

/** The tenant's own containers of `hostPod` in `metrics` (all, when no record was made). */
function ownContainers(hostPod: KubeObject, metrics: HostPodMetrics): ContainerUsage[] {
  const own = recordedTenantContainers(hostPod);
  const containers = metrics.containers ?? [];
  return own ? containers.filter((c) => own.has(c.name)) : containers;
}

/**
 * The tenant's Pods (of `namespace`, or all) matching `labelSelector`, with their metrics. The
 * selector is ANDed with the tenant's copy selector on the host, so it can only narrow; each
 * copy's reverse mapping is checked anyway.
 */
async function tenantPodMetrics(
  tenant: GatewayTenant,
  signal: AbortSignal,
  scope: { namespace?: string; name?: string; labelSelector?: string },
): Promise<TenantPodMetrics[]> {
  const ns = encodeURIComponent(tenant.hostNamespace);
  const selector = [tenantCopySelector(tenant.name, 'Pod')];
  if (scope.namespace !== undefined) selector.push(`${Labels.VirtualNamespace}=${scope.namespace}`);
  if (scope.labelSelector) selector.push(scope.labelSelector);
  const query = `?labelSelector=${encodeURIComponent(selector.join(','))}`;
  let hostPods: KubeObject[];
  let metrics: HostPodMetrics[];
  if (scope.name !== undefined && scope.namespace !== undefined) {
    const host = hostName(scope.name, scope.namespace, tenant.name);
    const [pod, one] = await Promise.all([
      tenant.host.getJson(`/api/v1/namespaces/${ns}/pods/${host}`, signal),
      tenant.host.getJson(`/apis/${METRICS_GROUP}/v1beta1/namespaces/${ns}/pods/${host}`, signal),
    ]);
    hostPods = pod ? [pod] : [];
    metrics = one ? [one as unknown as HostPodMetrics] : [];
  } else {
    [hostPods, metrics] = await Promise.all([
      hostItems<KubeObject>(tenant, `/api/v1/namespaces/${ns}/pods${query}`, signal),
      hostItems<HostPodMetrics>(
        tenant,
        `/apis/${METRICS_GROUP}/v1beta1/namespaces/${ns}/pods${query}`,
        signal,
      ),
    ]);
  }
  const byName = new Map(metrics.map((m) => [m.metadata.name, m]));
  const out: TenantPodMetrics[] = [];
  for (const pod of hostPods) {
    const source = reverseLookup(pod);
    const found = byName.get(pod.metadata.name);
    if (!found || source?.tenant !== tenant.name || source.kind !== 'Pod') continue;
    if (scope.namespace !== undefined && source.virtualNamespace !== scope.namespace) continue;
    if (scope.name !== undefined && source.virtualName !== scope.name) continue;
    const spec = pod.spec as { nodeName?: unknown } | undefined;
    out.push({
      namespace: source.virtualNamespace,
      name: source.virtualName,
      ...(typeof spec?.nodeName === 'string' ? { node: spec.nodeName } : {}),
      labels: tenantLabels(pod),
      metrics: { ...found, containers: ownContainers(pod, found) },
    });
  }
  return out.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

function podItem(version: MetricsVersion, pod: TenantPodMetrics): Record<string, unknown> {
  return {
    kind: 'PodMetrics',
    apiVersion: `${METRICS_GROUP}/${version}`,
    metadata: { name: pod.name, namespace: pod.namespace, labels: pod.labels },
    timestamp: pod.metrics.timestamp,
    window: pod.metrics.window,
    containers: pod.metrics.containers,
  };
}

/** Per Node the tenant's Pods run on, the sum of their usage. */
function nodeItems(version: MetricsVersion, pods: TenantPodMetrics[]): Record<string, unknown>[] {
  const nodes = new Map<string, TenantPodMetrics[]>();
  for (const pod of pods) {
    if (pod.node !== undefined) nodes.set(pod.node, [...(nodes.get(pod.node) ?? []), pod]);
  }
  return [...nodes.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, on]) => {
      const usages = on.flatMap((p) => p.metrics.containers.map((c) => c.usage));
      const usage = Object.fromEntries(
        ['cpu', 'memory'].map((r) => [
          r,
          sumQuantities(
            r,
            usages.map((u) => u[r] ?? '0'),
          ),
        ]),
      );
      const timestamp = on
        .map((p) => p.metrics.timestamp)
        .sort()
        .at(-1);
      return {
        kind: 'NodeMetrics',
        apiVersion: `${METRICS_GROUP}/${version}`,
        metadata: { name },
        timestamp,
        window: on[0]?.metrics.window,
        usage,
      };
    });
}

/**
 * Answers one metrics request of `tenant` on `res`. A host read that fails answers 503 (the
 * tenant's metrics are unavailable), never with the host's words.
 */
export async function serveMetrics(
  tenant: GatewayTenant,
  request: MetricsRequest,
  res: ServerResponse,
  gone: AbortSignal,
): Promise<void> {
  const { version } = request;
  if (request.what === 'resources') return answer(res, 200, resourceList(version));
  const signal = AbortSignal.any([gone, AbortSignal.timeout(READ_TIMEOUT_MS)]);
  let pods: TenantPodMetrics[];
  try {
    pods = await tenantPodMetrics(tenant, signal, request.what === 'pods' ? request : {});
  } catch (error) {
    if (gone.aborted) return;
    const status = error instanceof HostStatusError ? error.status : 'no answer';
    const message = `the host's resource metrics could not be read (${status})`;
    return answer(res, 503, statusFailure(503, 'ServiceUnavailable', message));
  }
  if (request.what === 'pods') {
    if (request.name === undefined)
      return answer(
        res,
        200,
        metricsList(
          version,
          'PodMetricsList',
          pods.map((p) => podItem(version, p)),
        ),
      );
    const pod = pods[0];
    if (pod) return answer(res, 200, podItem(version, pod));
    const message = `podmetrics.${METRICS_GROUP} "${request.name}" not found`;
    return answer(res, 404, statusFailure(404, 'NotFound', message));
  }
  const nodes = nodeItems(version, pods);
  if (request.name === undefined)
    return answer(res, 200, metricsList(version, 'NodeMetricsList', nodes));
  const node = nodes.find((n) => (n.metadata as { name: string }).name === request.name);
  if (node) return answer(res, 200, node);
  const message = `nodemetrics.${METRICS_GROUP} "${request.name}" not found`;
  return answer(res, 404, statusFailure(404, 'NotFound', message));
}
