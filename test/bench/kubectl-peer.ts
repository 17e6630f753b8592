/**
 * The peer `compare.bench.ts` measures the engine against: a cron job built from kubectl doing the
 * same job as a pass, minus GC and every safety check. It lists the tenant's ConfigMaps (with
 * `--pods`, also Services and Pods: `kubectl get configmaps,services,pods -A -o json`, kubectl's
 * default chunk size = page size), keeps what the engine's scope keeps, translates each object
 * with the engine's own `translate` (the generic `toHostObject` for ConfigMaps, so `hostName` and
 * the reverse-mapping labels and annotations are the same; the Pod and Service translators for
 * those), and server-side
 * applies the result into the host namespace (`kubectl apply --server-side -f -`, one `List` per
 * batch, batches one after the other).
 *
 * Each kubectl run gets a fresh `--cache-dir`, like a cron job's container, so discovery is
 * fetched every run. Requests are counted from kubectl's own `-v=6` log (one line per response),
 * and each kubectl's peak RSS is read with `/usr/bin/time` when it is installed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isExcluded } from '../../lib/engine/index.js';
import { translate } from '../../lib/engine/kinds/registry.js';
import type { CompiledKindRule } from '../../lib/engine/policy/scope.js';
import type { KubeObject } from '../../lib/ports/index.js';

const TIME = '/usr/bin/time';

export interface PeerOptions {
  kubectl: string;
  tenantKubeconfig: string;
  hostKubeconfig: string;
  tenant: string;
  hostNamespace: string;
  /** The engine's compiled rules, by kind: the same scope and key exclusions. */
  rules: ReadonlyMap<string, CompiledKindRule>;
  /** The kubectl resources to list (`configmaps`, or `configmaps,services,pods`). */
  resources: string;
  pageSize: number;
  /** Objects per `kubectl apply`; 0 applies everything in one batch. */
  batch: number;
}

/** Requests of one side, counted from kubectl's `-v=6` log. */
export interface SideCount {
  reads: number;
  writes: number;
}

export interface PeerRun {
  ms: number;
  /** Time of `kubectl get`, of the in-process rename, and of the applies. */
  getMs: number;
  transformMs: number;
  applyMs: number;
  listed: number;
  applied: number;
  tenant: SideCount;
  host: SideCount;
  /** Highest peak RSS of one kubectl process, KiB; undefined without /usr/bin/time. */
  kubectlMaxRssKiB: number | undefined;
}

interface Kubectl {
  stdout: string;
  count: SideCount;
  maxRssKiB: number | undefined;
}

/** Matches a response line of klog at -v=6, old (`GET https://… 200 OK`) and new (`verb="GET"`). */
const RESPONSE_LINE = /"Response" verb="([A-Z]+)"|\] ([A-Z]+) https?:\/\/\S+ \d{3}/;

function countRequests(log: string): SideCount {
  const count = { reads: 0, writes: 0 };
  for (const line of log.split('\n')) {
    const m = RESPONSE_LINE.exec(line);
    const verb = m?.[1] ?? m?.[2];
    if (!verb) continue;
    if (verb === 'GET' || verb === 'HEAD') count.reads += 1;
    else count.writes += 1;
  }
  return count;
}

async function kubectl(
  binary: string,
  cacheDir: string,
  args: string[],
  stdin?: string,
): Promise<Kubectl> {
  const rssFile = join(cacheDir, `rss-${process.hrtime.bigint()}`);
  const useTime = existsSync(TIME);
  const command = useTime ? TIME : binary;
  const full = [
    ...(useTime ? ['-f', '%M', '-o', rssFile, binary] : []),
    '--cache-dir',
    cacheDir,
    '-v=6',
    ...args,
  ];
  const { code, stdout, stderr } = await new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const child = spawn(command, full, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (c) =>
      resolve({
        code: c,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(stdin ?? '');
  });
  if (code !== 0) {
    const tail = stderr.split('\n').filter(Boolean).slice(-5).join('\n');
    throw new Error(`kubectl ${args.slice(0, 3).join(' ')} exited with ${code}:\n${tail}`);
  }
  let maxRssKiB: number | undefined;
  if (useTime) {
    const text = (await readFile(rssFile, 'utf8')).trim().split('\n').at(-1) ?? '';
    maxRssKiB = Number.isFinite(Number(text)) ? Number(text) : undefined;
  }
  return { stdout, count: countRequests(stderr), maxRssKiB };
}

/** One run of the kubectl cron peer. */
export async function runKubectlPeer(options: PeerOptions): Promise<PeerRun> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'tenantplane-kubectl-peer-'));
  try {
    const t0 = performance.now();
    const got = await kubectl(options.kubectl, cacheDir, [
      '--kubeconfig',
      options.tenantKubeconfig,
      'get',
      options.resources,
      '-A',
      '-o',
      'json',
      `--chunk-size=${options.pageSize}`,
    ]);
    const t1 = performance.now();
    const list = JSON.parse(got.stdout) as { items?: KubeObject[] };
    const items = list.items ?? [];
    const desired: KubeObject[] = [];
    for (const item of items) {
      // kubectl names each item's kind; a one-resource listing of old may not.
      const object = item.kind ? item : { ...item, apiVersion: 'v1', kind: 'ConfigMap' };
      const rule = options.rules.get(object.kind);
      if (!rule || object.metadata.deletionTimestamp || isExcluded(rule, object)) continue;
      const translated = translate(object, {
        tenant: options.tenant,
        hostNamespace: options.hostNamespace,
        excludeKeys: rule.excludeKeys,
      });
      if ('host' in translated) desired.push(translated.host);
    }
    const t2 = performance.now();
    const size = options.batch > 0 ? options.batch : Math.max(1, desired.length);
    const host = { reads: 0, writes: 0 };
    let kubectlMaxRssKiB = got.maxRssKiB;
    for (let start = 0; start < desired.length; start += size) {
      const body = JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: desired.slice(start, start + size),
      });
      const applied = await kubectl(
        options.kubectl,
        cacheDir,
        [
          '--kubeconfig',
          options.hostKubeconfig,
          'apply',
          '--server-side',
          '--field-manager=tenantplane-kubectl-cron',
          '-o',
          'name',
          '-f',
          '-',
        ],
        body,
      );
      host.reads += applied.count.reads;
      host.writes += applied.count.writes;
      if (applied.maxRssKiB !== undefined) {
        kubectlMaxRssKiB = Math.max(kubectlMaxRssKiB ?? 0, applied.maxRssKiB);
      }
    }
    const t3 = performance.now();
    return {
      ms: t3 - t0,
      getMs: t1 - t0,
      transformMs: t2 - t1,
      applyMs: t3 - t2,
      listed: items.length,
      applied: desired.length,
      tenant: got.count,
      host,
      kubectlMaxRssKiB,
    };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}
