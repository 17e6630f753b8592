/**
 * Resource metrics in the tenant on the real clusters (docs/metrics.md): kwok simulates each host
 * Pod's usage from its annotations `kwok.x-k8s.io/usage-cpu` / `usage-memory` (which the engine
 * carries from the tenant Pod), the host's stock metrics-server scrapes it, and the kubelet
 * gateway, registered in the tenant apiserver as `metrics.k8s.io` v1 and v1beta1, answers from
 * the host's metrics of the tenant's copies with the tenant's restricted host identity.
 * `kubectl top pod` and `kubectl top node` in the tenant show the simulated usage of the tenant's
 * Pods (a label selector honoured) and of its Nodes (the sum of its own Pods there), and nothing of
 * a second tenant synced to the same host; a HorizontalPodAutoscaler of the tenant's controller
 * manager scales a Deployment from 1 to 3 when its Pod's usage rises, while the tenant is followed.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName, runFollow } from '../../../lib/engine/index.js';
import { createGateway, type Gateway, loadGatewayTenants } from '../../../lib/gateway/index.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { kubeletPkiPaths } from '../../../lib/localcluster/kubelet-pki.js';
import { ensurePki } from '../../../lib/localcluster/pki.js';
import {
  registerTenantMetrics,
  unregisterTenantMetrics,
} from '../../../lib/localcluster/tenant-metrics.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import {
  clusters,
  createTenant,
  pass,
  RUN,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import { restrictedHostIdentity } from '../support/rbac.js';
import { kubectl } from './support.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
const HPA: KindRef = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' };
const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';
const kubelet = kubeletPkiPaths(join(stateDir, 'pki'));
const CPU = 'kwok.x-k8s.io/usage-cpu';
const MEMORY = 'kwok.x-k8s.io/usage-memory';

const inTenant = (...args: string[]) => kubectl(clusters.tenantKubeconfigPath, args);

/** A quantity as kubectl top prints it (`250m`, `100Mi`) or the API has it (`250123456n`, `102400Ki`). */
function quantity(text: string): number {
  const units: Record<string, number> = { n: 1e-9, m: 1e-3, '': 1, Ki: 1024, Mi: 1024 ** 2 };
  const match = /^([0-9.]+)(n|m|Ki|Mi)?$/.exec(text);
  if (!match) throw new Error(`not a quantity: ${text}`);
  return Number(match[1]) * (units[match[2] ?? ''] ?? Number.NaN);
}

/** `kubectl top` rows as name -> [cpu cores, memory bytes] (`--no-headers`; -A has a namespace column). */
function topRows(out: string): Map<string, [number, number]> {
  const rows = new Map<string, [number, number]>();
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const cells = line.trim().split(/\s+/);
    const name = cells.length >= 4 && !cells[1]?.match(/^[0-9]/) ? cells[1] : cells[0];
    const numbers = cells.filter((c) => /^[0-9.]+(m|Mi|Ki|Gi)?$/.test(c));
    if (name && numbers[0] && numbers[1] !== undefined) {
      const memory = numbers.find((n) => /Mi|Ki|Gi$/.test(n)) ?? '0';
      rows.set(name, [quantity(numbers[0]), quantity(memory.replace('Gi', '')) || 0]);
    }
  }
  return rows;
}

/** A Pod spec with one container and a CPU request (HPA utilization is of the request). */
const podSpec = {
  automountServiceAccountToken: false,
  terminationGracePeriodSeconds: 0,
  containers: [{ name: 'app', image: 'nginx:1', resources: { requests: { cpu: '100m' } } }],
};

/** The host copy of `name` in `ns` of `t` Running. */
async function hostRunning(t: Tenant, ns: string, name: string): Promise<KubeObject> {
  return waitFor(
    `host Pod ${name} Running`,
    async () => {
      const pod = await t.hostApi.get(POD, t.hostNamespace, hostName(name, ns, t.name));
      return (pod?.status as { phase?: string } | undefined)?.phase === 'Running' ? pod : undefined;
    },
    60_000,
  );
}

describe('resource metrics in the tenant', () => {
  let gateway: Gateway;
  let port = 0;
  let tenantServer = '';
  const tenantName = `mt-${RUN}`;
  /** The gateway's tenant, and a second tenant synced to the same host. */
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tenantplane-metrics-'));
    const hostNamespace = `h-${tenantName}`;
    const identity = await restrictedHostIdentity(tenantName, hostNamespace);
    const api = createClusterApi(identity);
    try {
      await waitFor('the host identity’s grants', async () => {
        await api.list(POD, { namespace: hostNamespace });
        return true;
      });
    } finally {
      await api.close();
    }
    const config = join(dir, 'gateway.yaml');
    const tenant = { name: tenantName, hostNamespace, clientCA: kubelet.clientCaCert };
    await writeFile(
      config,
      JSON.stringify({ tenants: [{ ...tenant, hostKubeconfig: identity.path }] }),
    );
    gateway = createGateway({
      tenants: await loadGatewayTenants(config),
      cert: await readFile(kubelet.gatewayCert),
      key: await readFile(kubelet.gatewayKey),
    });
    port = (await gateway.listen(0, '127.0.0.1')).port;
    const state = await readRunningControlPlane(stateDir);
    if (!state) throw new Error('the integration control plane state is missing');
    tenantServer = state.clusters.tenant.server;
    await registerTenantMetrics(tenantServer, await ensurePki(join(stateDir, 'pki')), {
      address: '127.0.0.1',
      port,
    });
    t = await createTenant(apis(), 'mt', {
      toHost: [POD],
      workloads: { kubeletGateway: { address: '127.0.0.1', port } },
    });
    other = await createTenant(apis(), 'mt-other', { toHost: [POD] });
  }, 120_000);

  afterAll(async () => {
    // A registration left behind would make every later discovery in the shared tenant fail.
    if (tenantServer)
      await unregisterTenantMetrics(tenantServer, await ensurePki(join(stateDir, 'pki')));
    await gateway?.close();
  });

  it('kubectl top pod and top node show the simulated usage of the tenant’s Pods and Nodes, and nothing of another tenant', async () => {
    expect(t.name).toBe(tenantName);
    const ns = t.vns.a;
    const pods: [Tenant, string, string, Record<string, string>, Record<string, string>][] = [
      [t, ns, 'busy', { tier: 'web' }, { [CPU]: '250m', [MEMORY]: '100Mi' }],
      [t, ns, 'idle', { tier: 'idle' }, { [CPU]: '20m', [MEMORY]: '30Mi' }],
      [other, other.vns.a, 'noisy', { tier: 'web' }, { [CPU]: '900m', [MEMORY]: '500Mi' }],
    ];
    for (const [owner, namespace, name, labels, annotations] of pods) {
      const body = tenantObject(owner, POD, namespace, name, { spec: podSpec });
      body.metadata.labels = { ...body.metadata.labels, ...labels };
      body.metadata.annotations = annotations;
      await owner.tenantApi.create(body);
    }
    for (const owner of [t, other]) expect((await pass(owner)).result.errors).toEqual([]);
    for (const [owner, namespace, name] of pods) await hostRunning(owner, namespace, name);
    // A full pass: the tenant Pods' status and Nodes back.
    for (const owner of [t, other]) {
      expect((await pass(owner, { full: true })).result.errors).toEqual([]);
    }

    // metrics-server needs two scrapes (10 s apart) of a Pod for its CPU rate.
    const rows = await waitFor(
      'kubectl top pod showing both Pods',
      async () => {
        const out = await inTenant('top', 'pod', '-n', ns, '--no-headers').catch(() => '');
        const found = topRows(out);
        return found.has('busy') && found.has('idle') ? found : undefined;
      },
      120_000,
    );
    const [busyCpu, busyMemory] = rows.get('busy') ?? [0, 0];
    expect(busyCpu).toBeGreaterThan(0.2);
    expect(busyCpu).toBeLessThan(0.3);
    expect(busyMemory).toBe(100 * 1024 ** 2);
    expect(rows.get('idle')?.[0]).toBeLessThan(0.05);

    // A label selector is honoured; every namespace shows this tenant's Pods only.
    expect([
      ...topRows(await inTenant('top', 'pod', '-n', ns, '-l', 'tier=web', '--no-headers')).keys(),
    ]).toEqual(['busy']);
    const all = await inTenant('top', 'pod', '-A', '--no-headers');
    expect(all).toContain('busy');
    expect(all).not.toContain('noisy');
    // The other tenant's Pod exists in the (shared) tenant apiserver: its metrics are not served.
    const otherList = JSON.parse(
      await inTenant('get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/${other.vns.a}/pods`),
    ) as { items: unknown[] };
    expect(otherList.items).toEqual([]);
    await expect(inTenant('top', 'pod', 'noisy', '-n', other.vns.a)).rejects.toThrow(/not found/);

    // Discovery lists both versions, v1 first (the one kubectl top takes).
    const versions = (await inTenant('api-versions'))
      .split('\n')
      .filter((v) => v.startsWith('metrics.k8s.io/'));
    expect(versions.sort()).toEqual(['metrics.k8s.io/v1', 'metrics.k8s.io/v1beta1']);
    const group = JSON.parse(await inTenant('get', '--raw', '/apis/metrics.k8s.io')) as {
      preferredVersion: { version: string };
    };
    expect(group.preferredVersion.version).toBe('v1');
    // v1 too, in the tenant's names and labels.
    const v1 = JSON.parse(
      await inTenant('get', '--raw', `/apis/metrics.k8s.io/v1/namespaces/${ns}/pods/busy`),
    ) as KubeObject & { containers: { name: string }[] };
    expect(v1).toMatchObject({
      apiVersion: 'metrics.k8s.io/v1',
      kind: 'PodMetrics',
      metadata: { name: 'busy', namespace: ns, labels: { tier: 'web' } },
    });
    expect(v1.containers.map((c) => c.name)).toEqual(['app']);

    // A Node's usage is the sum of this tenant's Pods on it: together 270m, never the other's 900m.
    const nodes = JSON.parse(
      await inTenant('get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes'),
    ) as { items: { metadata: { name: string }; usage: { cpu: string } }[] };
    const total = nodes.items.reduce((sum, n) => sum + quantity(n.usage.cpu), 0);
    expect(total).toBeGreaterThan(0.22);
    expect(total).toBeLessThan(0.32);
    const top = topRows(await inTenant('top', 'node', '--no-headers'));
    for (const node of nodes.items) expect(top.get(node.metadata.name)?.[0]).toBeLessThan(0.3);
  }, 300_000);

  it('an HPA on CPU scales a tenant Deployment from 1 to 3 when its Pod’s usage rises, while the tenant is followed', async () => {
    const tenant = t;
    const ns = tenant.vns.b;
    const abort = new AbortController();
    const passes: PassResult[] = [];
    const following = runFollow({
      tenant: tenant.name,
      tenantApi: tenant.tenantApi,
      hostApi: tenant.hostApi,
      signal: abort.signal,
      onPass: (result) => passes.push(result),
    });
    try {
      const template = tenantObject(tenant, POD, ns, 'unused', { spec: podSpec });
      const labels = { ...template.metadata.labels, app: 'scaled' };
      await tenant.tenantApi.create(
        tenantObject(tenant, DEPLOYMENT, ns, 'scaled', {
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'scaled' } },
            template: { metadata: { labels, annotations: { [CPU]: '50m' } }, spec: podSpec },
          },
        }),
      );
      await tenant.tenantApi.create(
        tenantObject(tenant, HPA, ns, 'scaled', {
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'scaled' },
            minReplicas: 1,
            maxReplicas: 3,
            metrics: [
              {
                type: 'Resource',
                resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
              },
            ],
          },
        }),
      );
      // The HPA reads the Pod's usage (50m of 100m requested) through the gateway (it lists an
      // empty current value while it has none).
      interface HpaStatus {
        desiredReplicas?: number;
        currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[];
      }
      const before = await waitFor(
        'the HPA reading the Pod’s CPU',
        async () => {
          const status = (await tenant.tenantApi.get(HPA, ns, 'scaled'))?.status as
            | HpaStatus
            | undefined;
          const current = status?.currentMetrics?.[0]?.resource?.current?.averageUtilization;
          return current !== undefined ? status : undefined;
        },
        150_000,
      );
      // At 50% of its request, the target, the Deployment stays at one replica.
      expect(before.desiredReplicas).toBe(1);
      const utilization = before.currentMetrics?.[0]?.resource?.current?.averageUtilization ?? 0;
      expect(utilization).toBeGreaterThan(35);
      expect(utilization).toBeLessThan(65);
      expect((await tenant.tenantApi.get(DEPLOYMENT, ns, 'scaled'))?.spec).toMatchObject({
        replicas: 1,
      });
      // The usage rises to 300m on the running Pod: the follow carries it to the host copy.
      const [pod] = (
        await tenant.tenantApi.list(POD, { namespace: ns, labelSelector: 'app=scaled' })
      ).items;
      if (!pod) throw new Error('no Pod of the Deployment');
      pod.metadata.annotations = { ...pod.metadata.annotations, [CPU]: '300m' };
      await tenant.tenantApi.update(pod);
      await waitFor(
        'the Deployment scaled to 3, all available',
        async () => {
          const d = await tenant.tenantApi.get(DEPLOYMENT, ns, 'scaled');
          const status = (d?.status ?? {}) as { availableReplicas?: number };
          return (d?.spec as { replicas?: number } | undefined)?.replicas === 3 &&
            status.availableReplicas === 3
            ? true
            : undefined;
        },
        180_000,
      );
      const copies = (await tenant.hostApi.list(POD, { namespace: tenant.hostNamespace })).items;
      expect(copies.filter((p) => p.metadata.labels?.app === 'scaled')).toHaveLength(3);
    } finally {
      abort.abort();
    }
    const result = await following;
    expect(result.failures).toEqual([]);
    expect(passes.flatMap((p) => p.errors)).toEqual([]);
  }, 420_000);
});
