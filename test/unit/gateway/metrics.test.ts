/**
 * The gateway as the tenant's metrics.k8s.io: the paths it serves, and its answers from a fake
 * host (docs/metrics.md): tenant names, tenant labels, the tenant Pod's own containers, Nodes as
 * the sum of the tenant's Pods, nothing of a copy whose reverse mapping is not this tenant's.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import { tenantContainersAnnotation } from '../../../lib/engine/kinds/pod/tenant-containers.js';
import {
  reverseMappingAnnotations,
  reverseMappingLabels,
} from '../../../lib/engine/names/reverse-mapping.js';
import type { GatewayTenant } from '../../../lib/gateway/config.js';
import { serveMetrics } from '../../../lib/gateway/metrics.js';
import {
  type MetricsRequest,
  parseMetricsRequest,
  quantityValue,
  sumQuantities,
} from '../../../lib/gateway/metrics-routes.js';
import { HostStatusError, type HostTarget } from '../../../lib/gateway/upstream.js';
import type { KubeObject } from '../../../lib/ports/index.js';

describe('parseMetricsRequest', () => {
  it.each<[string, string, MetricsRequest | undefined]>([
    ['the version', '/apis/metrics.k8s.io/v1beta1', { what: 'resources', version: 'v1beta1' }],
    ['all Pods', '/apis/metrics.k8s.io/v1/pods', { what: 'pods', version: 'v1' }],
    [
      'a namespace, with a selector',
      '/apis/metrics.k8s.io/v1beta1/namespaces/apps/pods?labelSelector=app%3Dweb&watch=1',
      { what: 'pods', version: 'v1beta1', namespace: 'apps', labelSelector: 'app=web' },
    ],
    [
      'one Pod',
      '/apis/metrics.k8s.io/v1beta1/namespaces/apps/pods/web',
      { what: 'pods', version: 'v1beta1', namespace: 'apps', name: 'web' },
    ],
    ['one Node', '/apis/metrics.k8s.io/v1/nodes/n1', { what: 'nodes', version: 'v1', name: 'n1' }],
    ['another version', '/apis/metrics.k8s.io/v2/pods', undefined],
    ['another group', '/apis/apps/v1/deployments', undefined],
    ['a kubelet path', '/containerLogs/apps/web/nginx', undefined],
    ['a bad name', '/apis/metrics.k8s.io/v1/namespaces/Apps/pods', undefined],
    ['too deep', '/apis/metrics.k8s.io/v1/namespaces/apps/pods/web/x', undefined],
  ])('%s', (_name, url, expected) => {
    expect(parseMetricsRequest(url)).toEqual(expected);
  });
});

describe('quantities', () => {
  it('reads and sums CPU and memory as metrics-server writes them', () => {
    expect(quantityValue('250m')).toBeCloseTo(0.25);
    expect(quantityValue('1500000n')).toBeCloseTo(0.0015);
    expect(quantityValue('100Mi')).toBe(100 * 1024 ** 2);
    expect(quantityValue('junk')).toBe(0);
    expect(sumQuantities('cpu', ['250m', '20000000n'])).toBe('270000000n');
    expect(sumQuantities('memory', ['1Mi', '1024Ki'])).toBe('2048Ki');
  });
});

const TENANT = 'dev';
const HOST_NS = 'tenant-dev';

function copy(tenant: string, ns: string, name: string, node: string, containers: string[]) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: hostName(name, ns, tenant),
      namespace: HOST_NS,
      labels: { ...reverseMappingLabels(tenant, 'Pod', ns), app: name },
      annotations: {
        ...reverseMappingAnnotations(ns, name, `uid-${name}`),
        ...tenantContainersAnnotation(containers),
      },
    },
    spec: { nodeName: node },
  } as KubeObject;
}

function usage(pod: KubeObject, containers: Record<string, string>) {
  return {
    metadata: { name: pod.metadata.name, namespace: HOST_NS },
    timestamp: '2026-01-01T00:00:00Z',
    window: '10s',
    containers: Object.entries(containers).map(([name, cpu]) => ({
      name,
      usage: { cpu, memory: '1024Ki' },
    })),
  };
}

const web = copy(TENANT, 'apps', 'web', 'n1', ['nginx']);
const db = copy(TENANT, 'data', 'db', 'n1', ['pg']);
// A copy in this host namespace whose reverse mapping names another tenant (a foreign object).
const foreign = copy('other', 'apps', 'web', 'n1', ['nginx']);
const metrics = [
  usage(web, { nginx: '250m', 'mesh-proxy': '500m' }),
  usage(db, { pg: '20m' }),
  usage(foreign, { nginx: '900m' }),
];

/** A host that answers the gateway's reads from the objects above; `fail` answers 403. */
function host(fail = false): { target: HostTarget; paths: string[] } {
  const paths: string[] = [];
  const pods = [web, db, foreign];
  const getJson = async (path: string) => {
    paths.push(path);
    if (fail) throw new HostStatusError(403);
    const metricsPath = path.includes('/apis/metrics.k8s.io/');
    const one = /\/pods\/([^/?]+)$/.exec(path)?.[1];
    const items: { metadata: { name: string } }[] = metricsPath ? metrics : pods;
    if (one) return items.find((i) => i.metadata.name === one) as KubeObject | undefined;
    return { items } as unknown as KubeObject;
  };
  return { target: { getJson } as unknown as HostTarget, paths };
}

/** Serves `url` for tenant `dev` and returns the status and parsed body. */
async function serve(url: string, fail = false) {
  const { target, paths } = host(fail);
  const tenant = { name: TENANT, hostNamespace: HOST_NS, host: target } as GatewayTenant;
  let status = 0;
  let body = '';
  const res = {
    writeHead: (s: number) => {
      status = s;
    },
    end: (text: string) => {
      body = text;
    },
  } as unknown as ServerResponse;
  const request = parseMetricsRequest(url);
  if (!request) throw new Error(`not a metrics path: ${url}`);
  await serveMetrics(tenant, request, res, new AbortController().signal);
  return { status, body: JSON.parse(body) as Record<string, unknown>, paths };
}

describe('serveMetrics', () => {
  it('lists the tenant’s Pods in tenant names and labels, its own containers only, never a foreign copy', async () => {
    const { status, body, paths } = await serve('/apis/metrics.k8s.io/v1/pods');
    expect(status).toBe(200);
    expect(body).toMatchObject({ kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1' });
    const items = body.items as { metadata: Record<string, unknown>; containers: unknown[] }[];
    expect(items.map((i) => i.metadata)).toEqual([
      { name: 'web', namespace: 'apps', labels: { app: 'web' } },
      { name: 'db', namespace: 'data', labels: { app: 'db' } },
    ]);
    expect(items[0]?.containers).toEqual([
      { name: 'nginx', usage: { cpu: '250m', memory: '1024Ki' } },
    ]);
    // Reads stay in the host namespace, scoped by the tenant's copy selector.
    for (const path of paths) expect(path).toContain(`/namespaces/${HOST_NS}/pods?labelSelector=`);
  });

  it('scopes a namespace and a label selector on the host, ANDed with the tenant’s', async () => {
    const { paths } = await serve(
      '/apis/metrics.k8s.io/v1beta1/namespaces/apps/pods?labelSelector=app%3Dweb',
    );
    const selector = decodeURIComponent(paths[0]?.split('labelSelector=')[1] ?? '');
    expect(selector).toBe(
      'app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=dev,tenantplane.io/kind=Pod,tenantplane.io/virtual-namespace=apps,app=web',
    );
  });

  it('answers one Pod, and 404 for a Pod that is not the tenant’s', async () => {
    const one = await serve('/apis/metrics.k8s.io/v1beta1/namespaces/apps/pods/web');
    expect(one.body).toMatchObject({ kind: 'PodMetrics', metadata: { name: 'web' } });
    const missing = await serve('/apis/metrics.k8s.io/v1beta1/namespaces/apps/pods/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('answers a Node as the sum of the tenant’s own Pods on it', async () => {
    const { body } = await serve('/apis/metrics.k8s.io/v1beta1/nodes');
    expect(body.items).toEqual([
      {
        kind: 'NodeMetrics',
        apiVersion: 'metrics.k8s.io/v1beta1',
        metadata: { name: 'n1' },
        timestamp: '2026-01-01T00:00:00Z',
        window: '10s',
        usage: { cpu: '270000000n', memory: '2048Ki' },
      },
    ]);
    expect((await serve('/apis/metrics.k8s.io/v1beta1/nodes/n2')).status).toBe(404);
  });

  it('says the metrics are unavailable when the host refuses, in no words of the host', async () => {
    const { status, body } = await serve('/apis/metrics.k8s.io/v1beta1/pods', true);
    expect(status).toBe(503);
    expect(JSON.stringify(body)).not.toContain(HOST_NS);
  });

  it('serves discovery of each version', async () => {
    const { body } = await serve('/apis/metrics.k8s.io/v1');
    expect(body).toMatchObject({ kind: 'APIResourceList', groupVersion: 'metrics.k8s.io/v1' });
  });
});
