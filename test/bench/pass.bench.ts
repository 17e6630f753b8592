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
import { parseArgs } from 'node:util';
import { runPass } from '../../lib/engine/index.js';
import {
  BENCH_TENANT,
  type BenchClusters,
  changeOnePercent,
  deleteOnePercent,
  printTable,
  withBenchClusters,
} from './scenario.js';

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

await withBenchClusters(objects, async (clusters: BenchClusters) => {
  const rows: string[][] = [];
  const pass = async (label: string) => {
    const t0 = performance.now();
    const result = await runPass({
      tenant: BENCH_TENANT,
      tenantApi: clusters.tenantApi,
      hostApi: clusters.hostApi,
      budget: { pageSize, concurrency },
    });
    const { counts, requests } = result;
    rows.push([
      label,
      String(Math.round(performance.now() - t0)),
      `${counts.Create}/${counts.Update}/${counts.Delete}/${counts.Skip}`,
      String(requests.tenant.reads),
      String(requests.host.reads),
      String(requests.host.writes),
      String(result.complete),
      String(result.errors.length),
    ]);
  };

  await pass('first pass');
  await pass('steady state');
  await changeOnePercent(clusters);
  await pass('1% changed');
  await deleteOnePercent(clusters);
  await pass('1% deleted');

  console.log(
    `objects=${objects} pageSize=${pageSize} concurrency=${concurrency} kubernetes=v${clusters.state.version}`,
  );
  printTable(
    ['pass', 'ms', 'C/U/D/S', 'tenant reads', 'host reads', 'host writes', 'complete', 'errors'],
    rows,
  );
  console.log(
    `peak RSS of the bench process: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
  );
});
