/**
 * The resource metrics API (`metrics.k8s.io`) as a tenant apiserver forwards it to the gateway, an
 * aggregated API server of the tenant (docs/metrics.md), and what its answers look like in the
 * tenant's names. Pure: no I/O.
 *
 * | tenant path (`/apis/metrics.k8s.io/{v1,v1beta1}/...`) | answer |
 * |---|---|
 * | (none: the version itself) | the APIResourceList: `pods` (namespaced), `nodes` |
 * | `pods`, `namespaces/{ns}/pods` | PodMetricsList of the tenant's Pods (all or one namespace) |
 * | `namespaces/{ns}/pods/{name}` | PodMetrics of one tenant Pod |
 * | `nodes`, `nodes/{name}` | NodeMetrics of the tenant's Nodes: the sum of its own Pods there |
 *
 * `labelSelector` is carried; nothing else of the query is.
 */
import { Labels } from '../engine/index.js';
import type { KubeObject } from '../ports/index.js';

export const METRICS_GROUP = 'metrics.k8s.io';
/** The versions served: v1beta1 (the HPA controller of 1.37) and v1 (kubectl 1.37 tries it first). */
export const METRICS_VERSIONS = ['v1', 'v1beta1'] as const;
export type MetricsVersion = (typeof METRICS_VERSIONS)[number];

/** What a metrics request asks for. */
export type MetricsRequest =
  | { what: 'resources'; version: MetricsVersion }
  | {
      what: 'pods';
      version: MetricsVersion;
      /** `undefined`: every namespace. */
      namespace?: string;
      name?: string;
      labelSelector?: string;
    }
  | { what: 'nodes'; version: MetricsVersion; name?: string; labelSelector?: string };

const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The metrics request in `url`, or `undefined` if it is none (then the kubelet routes apply). */
export function parseMetricsRequest(url: string): MetricsRequest | undefined {
  const parsed = new URL(url, 'https://gateway.invalid');
  const parts = parsed.pathname.split('/').filter((p) => p !== '');
  if (parts[0] !== 'apis' || parts[1] !== METRICS_GROUP) return undefined;
  const version = METRICS_VERSIONS.find((v) => v === parts[2]);
  if (!version) return undefined;
  const rest = parts.slice(3);
  if (!rest.every((p) => SEGMENT.test(p) && p.length <= 253)) return undefined;
  const selector = parsed.searchParams.get('labelSelector') ?? '';
  const labelSelector = selector === '' ? {} : { labelSelector: selector };
  if (rest.length === 0) return { what: 'resources', version };
  if (rest[0] === 'nodes' && rest.length <= 2) {
    return { what: 'nodes', version, ...labelSelector, ...(rest[1] ? { name: rest[1] } : {}) };
  }
  if (rest[0] === 'pods' && rest.length === 1) return { what: 'pods', version, ...labelSelector };
  if (rest[0] === 'namespaces' && rest[1] && rest[2] === 'pods' && rest.length <= 4) {
    const name = rest[3] ? { name: rest[3] } : {};
    return { what: 'pods', version, namespace: rest[1], ...name, ...labelSelector };
  }
  return undefined;
}

/** The APIResourceList of one version: what discovery (and the aggregator's check) reads. */
export function resourceList(version: MetricsVersion): Record<string, unknown> {
  const verbs = ['get', 'list'];
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${METRICS_GROUP}/${version}`,
    resources: [
      { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs },
      { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs },
    ],
  };
}

/** One container's usage, as the metrics API has it. */
export interface ContainerUsage {
  name: string;
  usage: Record<string, string>;
}

/** A host PodMetrics (metrics-server's v1beta1), as far as it is read. */
export interface HostPodMetrics {
  metadata: { name: string };
  timestamp: string;
  window: string;
  containers: ContainerUsage[];
}

/** The labels of a host copy that are the tenant's: without the engine's own. */
export function tenantLabels(hostPod: KubeObject): Record<string, string> {
  const engine = new Set<string>(Object.values(Labels));
  return Object.fromEntries(
    Object.entries(hostPod.metadata.labels ?? {}).filter(
      ([key]) => !engine.has(key) && !key.startsWith('tenantplane.io/'),
    ),
  );
}

/** A list answer of `kind` (`PodMetricsList`, `NodeMetricsList`). */
export function metricsList(
  version: MetricsVersion,
  kind: string,
  items: Record<string, unknown>[],
): Record<string, unknown> {
  return { kind, apiVersion: `${METRICS_GROUP}/${version}`, metadata: {}, items };
}

/** A Kubernetes `Status` failure, as an API server answers one. */
export function statusFailure(code: number, reason: string, message: string): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}

/**
 * The sum of quantities of one resource (`cpu` or `memory`): CPU in nanocores (`n`), memory in
 * `Ki`, as metrics-server writes them. A quantity it cannot read counts as zero.
 */
export function sumQuantities(resource: string, values: readonly string[]): string {
  let total = 0;
  for (const value of values) total += quantityValue(value);
  if (resource === 'cpu') return `${Math.round(total * 1e9)}n`;
  return `${Math.round(total / 1024)}Ki`;
}

const SUFFIXES: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** The value of a Kubernetes quantity (`250m`, `128Mi`, `1234567n`), or 0 if unreadable. */
export function quantityValue(quantity: string): number {
  const match = /^([0-9.]+)(n|u|m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(quantity.trim());
  if (!match) return 0;
  return Number(match[1]) * (SUFFIXES[match[2] ?? ''] ?? 0);
}
