/**
 * Memory benchmark of one tenant's convergence passes against the real local tenant + host
 * clusters. Not a test: it asserts nothing, it prints figures.
 *
 *   node_modules/.bin/node --import tsx test/bench/pass-memory.bench.ts --objects 10000 [--live]
 *     [--object-kib 1024] [--heap-mib 512] [--page-size 500] [--concurrency 8] [--sample-ms 50]
 *     [--node-options "--max-semi-space-size=25"]
 *
 * Same scenario as `pass.bench.ts` (N ConfigMaps with ~200-byte payloads, or ~`--object-kib` KiB
 * each, in 10 virtual namespaces;
 * first pass, steady state, 1% changed, 1% deleted, steady again). The control plane and the
 * seeding run in this process; each pass runs in a fresh child process (`node --expose-gc`, like a
 * cold Lambda invocation) that only creates the two cluster clients and runs the pass, so the
 * figures are the pass's own and not the harness's. Per pass, in MiB:
 * - `heap0`/`rss0`: heapUsed and RSS after a forced GC just before the pass (clients created);
 * - `peakHeap`/`peakRss`: the highest heapUsed and RSS sampled every `--sample-ms` during it
 *   (peakHeap counts garbage not yet collected, so it depends on V8's heap sizing);
 * - `maxRss`: the child's peak RSS from the kernel (getrusage);
 * - `live`: with `--live` only, the highest heapUsed after a forced GC at every page boundary
 *   (`onProgress`): the memory the pass really needs, independent of GC timing (slower);
 * - `held`: heapUsed after a forced GC with the PassResult still referenced, minus `heap0` (what
 *   the result keeps: its decisions).
 * Each child is capped at `--heap-mib` of old space (`--max-old-space-size`, default 512, a 512 MB
 * function); a pass that needs more dies and the bench says so. `--node-options` adds flags to the
 * child, e.g. the Lambda runtime's semi-space for 512 MiB (`--max-semi-space-size=25`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../lib/engine/index.js';
import {
  BENCH_TENANT,
  changeOnePercent,
  deleteOnePercent,
  printTable,
  withBenchClusters,
} from './scenario.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '10000' },
    'object-kib': { type: 'string' },
    'heap-mib': { type: 'string', default: '512' },
    'page-size': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
    'sample-ms': { type: 'string', default: '50' },
    live: { type: 'boolean', default: false },
    'node-options': { type: 'string', default: '' },
    // Child mode (internal): run one pass against these kubeconfig files, print one JSON line.
    child: { type: 'boolean', default: false },
    'tenant-kubeconfig': { type: 'string' },
    'host-kubeconfig': { type: 'string' },
  },
});
const objects = Number(values.objects);
const pageSize = Number(values['page-size']);
const concurrency = Number(values.concurrency);
const sampleMs = Number(values['sample-ms']);
const heapMib = Number(values['heap-mib']);
// ~N KiB per ConfigMap: the payload leaves room for the other keys under the 1 MiB data limit.
const payloadBytes =
  values['object-kib'] === undefined
    ? undefined
    : Math.max(0, Number(values['object-kib']) * 1024 - 1024);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** What one child reports, bytes and milliseconds. */
interface PassFigures {
  ms: number;
  counts: string;
  requests: string;
  decisions: number;
  complete: boolean;
  heap0: number;
  rss0: number;
  peakHeap: number;
  peakRss: number;
  maxRss: number;
  live: number | undefined;
  held: number;
}

/** One pass in this (child) process; prints its figures as one JSON line on stdout. */
async function childPass(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the child needs node --expose-gc');
  const settle = () => {
    gc();
    gc();
    return process.memoryUsage();
  };
  const file = async (path: string | undefined) => {
    const { readFile } = await import('node:fs/promises');
    if (!path) throw new Error('missing kubeconfig path');
    return { text: await readFile(path, 'utf8'), origin: path };
  };
  const tenantApi = createClusterApi(await file(values['tenant-kubeconfig']));
  const hostApi = createClusterApi(await file(values['host-kubeconfig']));
  const before = settle();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  let live: number | undefined;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(sample, sampleMs);
  const t0 = performance.now();
  const result = await runPass({
    tenant: BENCH_TENANT,
    tenantApi,
    hostApi,
    budget: { pageSize, concurrency },
    ...(values.live
      ? {
          onProgress: () => {
            gc();
            live = Math.max(live ?? 0, process.memoryUsage().heapUsed);
          },
        }
      : {}),
  });
  const ms = Math.round(performance.now() - t0);
  clearInterval(timer);
  sample();
  const held = settle().heapUsed - before.heapUsed;
  const { counts, requests } = result;
  const figures: PassFigures = {
    ms,
    counts: `${counts.Create}/${counts.Update}/${counts.Delete}/${counts.Skip}`,
    requests: `${requests.tenant.reads + requests.host.reads}/${requests.host.writes}`,
    decisions: result.decisions.length,
    complete: result.complete,
    heap0: before.heapUsed,
    rss0: before.rss,
    peakHeap,
    peakRss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    live,
    held,
  };
  await Promise.all([tenantApi.close(), hostApi.close()]);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Runs one pass in a fresh `node --expose-gc` child and returns its figures. */
function passInChild(tenantKubeconfig: string, hostKubeconfig: string): Promise<PassFigures> {
  const args = [
    '--expose-gc',
    `--max-old-space-size=${heapMib}`,
    ...values['node-options'].split(/\s+/).filter((a) => a !== ''),
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    '--child',
    '--tenant-kubeconfig',
    tenantKubeconfig,
    '--host-kubeconfig',
    hostKubeconfig,
    '--page-size',
    String(pageSize),
    '--concurrency',
    String(concurrency),
    '--sample-ms',
    String(sampleMs),
    ...(values.live ? ['--live'] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) {
        reject(new Error(`the pass child exited with ${signal ?? code}`));
        return;
      }
      resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as PassFigures);
    });
  });
}

async function main(): Promise<void> {
  await withBenchClusters(
    objects,
    async (clusters) => {
      const rows: string[][] = [];
      const { tenant: tenantCluster, host: hostCluster } = clusters.state.clusters;
      const pass = async (label: string) => {
        const f = await passInChild(tenantCluster.kubeconfig, hostCluster.kubeconfig);
        const row = [
          label,
          String(f.ms),
          f.counts,
          f.requests,
          String(f.decisions),
          String(f.complete),
          mib(f.heap0),
          mib(f.peakHeap),
          f.live === undefined ? '-' : mib(f.live),
          mib(f.held),
          mib(f.rss0),
          mib(f.peakRss),
          mib(f.maxRss),
        ];
        rows.push(row);
        console.error(`[bench] ${row.join(' ')}`);
      };

      await pass('first pass');
      await pass('steady state');
      await changeOnePercent(clusters);
      await pass('1% changed');
      await deleteOnePercent(clusters);
      await pass('1% deleted');
      await pass('steady again');

      const flags =
        ` child flags: --max-old-space-size=${heapMib} ${values['node-options']}`.trimEnd();
      const size = payloadBytes === undefined ? '' : ` objectKiB=${values['object-kib']}`;
      console.log(
        `objects=${objects}${size} pageSize=${pageSize} concurrency=${concurrency} kubernetes=v${clusters.state.version}${flags} (memory in MiB)`,
      );
      printTable(
        [
          'pass',
          'ms',
          'C/U/D/S',
          'reads/writes',
          'decisions',
          'complete',
          'heap0',
          'peakHeap',
          'live',
          'held',
          'rss0',
          'peakRss',
          'maxRss',
        ],
        rows,
      );
    },
    payloadBytes,
  );
}

await (values.child ? childPass() : main());
