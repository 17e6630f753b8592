/**
 * Benchmark of one tenant's convergence passes against the real local tenant + host clusters.
 * Not a test: it asserts nothing, it prints figures.
 *
 *   npm run bench -- --objects 1000 [--page-size 500] [--concurrency 8]
 *
 * It starts a throw-away control plane, creates N ConfigMaps in 10 virtual namespaces of a
 * tenant, then measures: the first pass (N creates), a steady-state pass (no writes), a pass
 * after 1% of the tenant objects changed, and a pass after 1% were deleted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../lib/engine/index.js';
import {
  LocalKubeconfigSource,
  startControlPlane,
  stopControlPlane,
} from '../../lib/localcluster/index.js';
import type { ClusterApi, KubeObject, PassResult } from '../../lib/ports/index.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '1000' },
    'page-size': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
  },
});
const objects = Number(values.objects);
const pageSize = Number(values['page-size']);
const concurrency = Number(values.concurrency);
const tenant = 'bench';
const namespaces = Array.from({ length: 10 }, (_, i) => `ns-${i}`);

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

function configMap(i: number, value: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: namespaces[i % namespaces.length],
      labels: { app: 'bench' },
    },
    data: { index: String(i), value, payload: 'x'.repeat(200) },
  };
}

const rows: string[][] = [];
function record(label: string, result: PassResult, wallMs: number): void {
  const { counts, requests } = result;
  rows.push([
    label,
    String(wallMs),
    `${counts.Create}/${counts.Update}/${counts.Delete}/${counts.Skip}`,
    String(requests.tenant.reads),
    String(requests.host.reads),
    String(requests.host.writes),
    String(result.complete),
    String(result.errors.length),
  ]);
}

async function pass(label: string, tenantApi: ClusterApi, hostApi: ClusterApi): Promise<void> {
  const t0 = performance.now();
  const result = await runPass({ tenant, tenantApi, hostApi, budget: { pageSize, concurrency } });
  record(label, result, Math.round(performance.now() - t0));
}

const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-bench-'));
try {
  const state = await startControlPlane({
    stateDir,
    tieToThisProcess: true,
    removeStateDirWhenOrphaned: true,
    log: (l) => console.error(`[local] ${l}`),
  });
  const source = new LocalKubeconfigSource(state);
  const tenantApi = createClusterApi(await source.load('tenant'));
  const hostApi = createClusterApi(await source.load('host'));

  await hostApi.create({
    apiVersion: 'tenantplane.io/v1alpha1',
    kind: 'TenantCluster',
    metadata: { name: tenant },
    spec: { hostNamespace: 'tenant-bench', toHost: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
  });
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-bench' } });
  for (const name of namespaces) {
    await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  const t0 = performance.now();
  const indexes = Array.from({ length: objects }, (_, i) => i);
  await pool(indexes, 32, async (i) => {
    await tenantApi.create(configMap(i, 'v1'));
  });
  console.error(
    `[bench] seeded ${objects} tenant ConfigMaps in ${Math.round(performance.now() - t0)} ms`,
  );

  await pass('first pass', tenantApi, hostApi);
  await pass('steady state', tenantApi, hostApi);

  const changed = indexes.filter((i) => i % 100 === 0);
  await pool(changed, 16, async (i) => {
    const cm = configMap(i, 'v2');
    const current = await tenantApi.get(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      cm.metadata.namespace,
      cm.metadata.name,
    );
    cm.metadata.resourceVersion = current?.metadata.resourceVersion;
    await tenantApi.update(cm);
  });
  await pass('1% changed', tenantApi, hostApi);

  await pool(changed, 16, async (i) => {
    const cm = configMap(i, 'v2');
    const current = await tenantApi.get(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      cm.metadata.namespace,
      cm.metadata.name,
    );
    await tenantApi.delete(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      cm.metadata.namespace,
      cm.metadata.name,
      {
        uid: current?.metadata.uid ?? '',
      },
    );
  });
  await pass('1% deleted', tenantApi, hostApi);

  const header = [
    'pass',
    'ms',
    'C/U/D/S',
    'tenant reads',
    'host reads',
    'host writes',
    'complete',
    'errors',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(
    `objects=${objects} pageSize=${pageSize} concurrency=${concurrency} kubernetes=v${state.version}`,
  );
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  console.log(
    `peak RSS of the bench process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
  );
} finally {
  await stopControlPlane(stateDir);
  await rm(stateDir, { recursive: true, force: true });
}
