/**
 * The engine's memory per pass in the fleet bench: one quiet tenant's pass in a fresh
 * `node --expose-gc` process (a cold invocation, as pass-memory.bench.ts measures it), while the
 * fleet is set up, so the figure is the pass's own and not the in-process fleet's.
 *
 *   node --expose-gc --import tsx test/bench/fleet-memory.ts --child <tenant> <tenant-kubeconfig> <host-kubeconfig>
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { runPass } from '../../lib/engine/index.js';

/** What the child reports, MiB and ms. */
export interface PassMemory {
  /** Highest heapUsed during the pass minus heapUsed after a GC before it (clients created). */
  heapMiB: number;
  /** The child's peak RSS (getrusage). */
  maxRssMiB: number;
  ms: number;
}

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function child(tenant: string, tenantPath: string, hostPath: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the child needs node --expose-gc');
  const load = async (path: string) => ({ text: await readFile(path, 'utf8'), origin: path });
  const tenantApi = createClusterApi(await load(tenantPath));
  const hostApi = createClusterApi(await load(hostPath));
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 20);
  const t0 = performance.now();
  await runPass({ tenant, tenantApi, hostApi });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const figures: PassMemory = {
    heapMiB: mib(peak - heap0),
    maxRssMiB: mib(process.resourceUsage().maxRSS * 1024),
    ms: Math.round(performance.now() - t0),
  };
  await Promise.all([tenantApi.close(), hostApi.close()]);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Runs one pass of `tenant` in a fresh child and returns its figures. */
export function passMemory(
  tenant: string,
  tenantKubeconfig: string,
  hostKubeconfig: string,
): Promise<PassMemory> {
  const args = ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), '--child'];
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...args, tenant, tenantKubeconfig, hostKubeconfig], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    c.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    c.on('error', reject);
    c.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as PassMemory)
        : reject(new Error(`the memory child exited with ${code}`)),
    );
  });
}

if (process.argv[2] === '--child') {
  const [tenant, tenantPath, hostPath] = process.argv.slice(3) as [string, string, string];
  await child(tenant, tenantPath, hostPath);
}
