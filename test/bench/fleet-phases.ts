/**
 * The phases of one fleet run (fleet.bench.ts says what each does) and the figures they give.
 */

import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { runBurst } from './fleet-burst.js';
import { cpuBusy, readCpu } from './fleet-cpu.js';
import { passMemory } from './fleet-memory.js';
import {
  diffScrape,
  type HostScrape,
  histogramCount,
  histogramQuantile,
  mergeHistograms,
  quantile,
  readScrape,
  sumScrapes,
} from './fleet-metrics.js';
import { type FleetPlane, scrapeHost, scrapeTenants } from './fleet-plane.js';
import { Fleet, FollowProbes, type PassRecord, type ProbeRecord } from './fleet-run.js';
import { type FleetTenant, NOISY, setUpTenants } from './fleet-tenants.js';
import { pool } from './scenario.js';

export interface FleetOptions {
  tenants: number;
  withFlowSchema: boolean;
  followed: number;
  /** Probe every followed tenant at the same instant (fleet-run.ts's FollowProbes says why not). */
  probesTogether: boolean;
  minuteMs: number;
  quietMinutes: number;
  noisyMinutes: number;
  noisyWrites: number;
  noisyPods: number;
  seedNamespaces: number;
  seedObjects: number;
  log: (line: string) => void;
}

/** One phase's host figures. */
export interface HostWindow {
  requestsPerSecond: number;
  p50Ms: number | undefined;
  p99Ms: number | undefined;
  /** p50/p99 per verb, ms. */
  byVerb: Record<string, { n: number; p50Ms: number | undefined; p99Ms: number | undefined }>;
  code429: number;
  rejected: number;
}

/** One JSON line of `-o json`. */
export interface FleetFigures {
  tenants: number;
  withFlowSchema: boolean;
  tenantApiservers: number;
  followed: number;
  probesTogether: boolean;
  minuteSeconds: number;
  /** Host p99 over both phases, every verb but WATCH. */
  hostP99Ms: number | undefined;
  /** 429s and priority and fairness rejections over both phases. */
  rejected: number;
  quietPassP50Ms: number | undefined;
  quietPassP99Ms: number | undefined;
  /** Quiet tenants' pass p50/p99 while the noisy tenant bursts. */
  noisyPassP50Ms: number | undefined;
  noisyPassP99Ms: number | undefined;
  followP99Ms: number | undefined;
  followNoisyP99Ms: number | undefined;
  /** Where the followed changes' time went (both phases): see {@link followPhases}. */
  followPhases: FollowPhases;
  passMemoryMiB: number;
  passMaxRssMiB: number;
  /** Host requests of a quiet tenant's pass in the quiet phase (mean), and tenant reads. */
  hostRequestsPerQuietPass: number;
  tenantReadsPerQuietPass: number;
  quiet: HostWindow;
  noisy: HostWindow;
  /** The tenant apiservers' requests in the quiet phase, all of them together. */
  quietTenantSide: HostWindow;
  /** The share of the machine's cores the plane and the bench used, per phase. */
  cpu: { quiet: ReturnType<typeof cpuBusy>; noisy: ReturnType<typeof cpuBusy> };
  noisyTenant: {
    passes: number;
    hostWrites: number;
    p99Ms: number | undefined;
    burstSeconds: number;
  };
  passes: { quiet: number; noisy: number; dropped: number; failed: number; incomplete: number };
  /** p99 of the bench process's event-loop delay in the quiet phase, ms. */
  quietLoopDelayP99Ms: number;
  /**
   * Quiet tenants' quiet-phase passes by path, and the reasons a kind did not resume (counted, the
   * tenant-specific parts cut), so a per-pass cost that grows with N shows where it comes from.
   */
  quietPaths: Record<string, number>;
  quietPathReasons: Record<string, number>;
  /** This process's peak RSS and the plane's processes' RSS at the end, MiB. */
  benchRssMiB: number;
  planeRssMiB: number;
  wallSeconds: number;
}

const ms = (seconds: number | undefined) =>
  seconds === undefined ? undefined : Math.round(seconds * 1000);
const round = (v: number | undefined) => (v === undefined ? undefined : Math.round(v));

function hostWindow(w: HostScrape, seconds: number): HostWindow {
  const all = mergeHistograms(w.byVerb.values());
  const byVerb: HostWindow['byVerb'] = {};
  for (const [verb, h] of w.byVerb) {
    const n = histogramCount(h);
    if (n > 0)
      byVerb[verb] = {
        n,
        p50Ms: ms(histogramQuantile(0.5, h)),
        p99Ms: ms(histogramQuantile(0.99, h)),
      };
  }
  return {
    requestsPerSecond: Math.round((w.requests / seconds) * 10) / 10,
    p50Ms: ms(histogramQuantile(0.5, all)),
    p99Ms: ms(histogramQuantile(0.99, all)),
    byVerb,
    code429: w.code429,
    rejected: w.rejected,
  };
}

async function rssMiB(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  // Resource versions and counts differ per pass; the reason's words are what add up.
  for (const value of values.map((v) => v.replace(/\d+/g, 'N')))
    counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** The followed changes' phases: p50/p99 of each, by what the wake found running, the slowest. */
export interface FollowPhases {
  writeP99Ms: number | undefined;
  /** From the write to the woken invocation's start (its wait behind the one running). */
  startP99Ms: number | undefined;
  /** From the woken invocation's start to the copy seen, when it wrote the copy. */
  afterStartP99Ms: number | undefined;
  /** The woken invocations' first pass, p50/p99, and its requests on both sides (mean). */
  wokenPassP50Ms: number | undefined;
  wokenPassP99Ms: number | undefined;
  wokenPassRequests: number;
  byBehind: Record<string, { n: number; p50Ms: number | undefined; p99Ms: number | undefined }>;
  slowest: ProbeRecord[];
}

function followPhases(probes: ProbeRecord[], passes: PassRecord[]): FollowPhases {
  const q = (p: number, xs: number[]) => round(quantile(p, xs));
  const seenBy = new Map<string, number[]>();
  for (const p of probes) {
    const kind = `${p.behind}${p.behindFollowing ? ' following' : ''}`;
    seenBy.set(kind, [...(seenBy.get(kind) ?? []), p.seenMs]);
  }
  const byBehind: FollowPhases['byBehind'] = {};
  for (const [kind, seen] of seenBy)
    byBehind[kind] = { n: seen.length, p50Ms: q(0.5, seen), p99Ms: q(0.99, seen) };
  const started = probes.filter((p) => p.startedMs !== undefined) as Array<
    ProbeRecord & { startedMs: number }
  >;
  const woken = passes.filter((p) => p.trigger === 'wake' && p.phase !== 'warm-up');
  return {
    writeP99Ms: q(
      0.99,
      probes.flatMap((p) => (p.writtenMs === undefined ? [] : [p.writtenMs])),
    ),
    startP99Ms: q(
      0.99,
      started.map((p) => p.startedMs),
    ),
    afterStartP99Ms: q(
      0.99,
      started.filter((p) => p.seenMs >= p.startedMs).map((p) => p.seenMs - p.startedMs),
    ),
    wokenPassP50Ms: q(
      0.5,
      woken.map((p) => p.ms),
    ),
    wokenPassP99Ms: q(
      0.99,
      woken.map((p) => p.ms),
    ),
    wokenPassRequests:
      woken.length === 0
        ? 0
        : Math.round(
            (woken.reduce((a, p) => a + p.hostReads + p.hostWrites + p.tenantReads, 0) /
              woken.length) *
              10,
          ) / 10,
    byBehind,
    slowest: [...probes]
      .sort((a, b) => b.seenMs - a.seenMs)
      .slice(0, 5)
      .map((p) => ({
        ...p,
        seenMs: Math.round(p.seenMs),
        ...(p.writtenMs === undefined ? {} : { writtenMs: Math.round(p.writtenMs) }),
        ...(p.startedMs === undefined ? {} : { startedMs: Math.round(p.startedMs) }),
      })),
  };
}

function quietPasses(passes: PassRecord[], phase: string): PassRecord[] {
  return passes.filter((p) => !p.noisy && p.phase === phase);
}

/** Sets up N tenants on `plane`, runs the three phases, returns the figures. */
export async function measureFleet(plane: FleetPlane, o: FleetOptions): Promise<FleetFigures> {
  const tenants = await setUpTenants(plane, { ...o, log: o.log });
  const hostPath = plane.state.clusters.host.kubeconfig;
  const hostApi = createClusterApi({ text: await readFile(hostPath, 'utf8'), origin: hostPath });
  const fleet = new Fleet(tenants, o.log);
  try {
    const t0 = Date.now();
    await pool(tenants, 4, (t) => fleet.invoke(t.name));
    o.log(`warm-up: ${tenants.length} first passes in ${Date.now() - t0} ms`);
    const sample = tenants.find((t) => !t.noisy) as FleetTenant;
    const memory = await passMemory(
      sample.name,
      sample.apiserver.kubeconfig,
      sample.hostKubeconfig.path,
    );
    o.log(`memory: ${JSON.stringify(memory)}`);

    const followed = tenants.filter((t) => t.followed);
    const probes = new FollowProbes(fleet, followed, hostApi);
    let before = readScrape(await scrapeHost(plane));
    const tenantsBefore = (await scrapeTenants(plane)).map(readScrape);
    let cpuBefore = await readCpu(plane.pids());
    fleet.phase = 'quiet';
    // All the tenants' functions share this one event loop (deployed, each has its own): how long
    // it made a ready callback wait tells the bench's own saturation apart from the engine's.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    let phaseStart = Date.now();
    fleet.startSchedule(o.minuteMs);
    probes.start(o.minuteMs / 2, o.probesTogether);
    await sleep(o.quietMinutes * o.minuteMs);
    let after = readScrape(await scrapeHost(plane));
    const tenantsAfter = (await scrapeTenants(plane)).map(readScrape);
    let cpuAfter = await readCpu(plane.pids());
    const quietCpu = cpuBusy(cpuBefore, cpuAfter);
    const quietSeconds = (Date.now() - phaseStart) / 1000;
    const quietWindow = diffScrape(after, before);
    const quiet = hostWindow(quietWindow, quietSeconds);
    const quietTenantSide = hostWindow(
      sumScrapes(tenantsAfter.map((a, i) => diffScrape(a, tenantsBefore[i] as typeof a))),
      quietSeconds,
    );
    loopDelay.disable();
    const quietLoopDelayP99Ms = Math.round(loopDelay.percentile(99) / 1e6);
    const followQuiet = fleet.probes.map((p) => p.seenMs);
    o.log(`quiet phase: ${JSON.stringify(quiet)}`);

    before = after;
    cpuBefore = cpuAfter;
    fleet.phase = 'noisy';
    phaseStart = Date.now();
    const noisy = tenants.find((t) => t.name === NOISY) as FleetTenant;
    const burstDone = runBurst(noisy.apiserver.kubeconfig, o.noisyWrites, o.noisyPods).then(
      () => Date.now() - phaseStart,
    );
    const [burstMs] = await Promise.all([burstDone, sleep(o.noisyMinutes * o.minuteMs)]);
    after = readScrape(await scrapeHost(plane));
    cpuAfter = await readCpu(plane.pids());
    const noisyWindow = diffScrape(after, before);
    const noisyHost = hostWindow(noisyWindow, (Date.now() - phaseStart) / 1000);
    o.log(`noisy phase: ${JSON.stringify(noisyHost)}`);
    const followNoisy = fleet.probes.slice(followQuiet.length).map((p) => p.seenMs);
    await probes.stop();
    await fleet.stop();
    for (const w of [...fleet.wokenTraces].sort((a, b) => b.ms - a.ms).slice(0, 3))
      o.log(`slowest woken pass ${w.ms} ms: ${w.trace.join(', ')}`);

    const both = mergeHistograms([...quietWindow.byVerb.values(), ...noisyWindow.byVerb.values()]);
    const q = quietPasses(fleet.passes, 'quiet');
    const n = quietPasses(fleet.passes, 'noisy');
    const noisyOwn = fleet.passes.filter((p) => p.noisy && p.phase === 'noisy');
    const mean = (xs: number[]) =>
      xs.length === 0 ? 0 : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;
    const planeRss = (await Promise.all(plane.pids().map(rssMiB))).reduce((a, b) => a + b, 0);
    return {
      tenants: o.tenants,
      withFlowSchema: o.withFlowSchema,
      tenantApiservers: plane.tenantApiservers.length,
      followed: followed.length,
      probesTogether: o.probesTogether,
      minuteSeconds: o.minuteMs / 1000,
      hostP99Ms: ms(histogramQuantile(0.99, both)),
      rejected: quiet.code429 + noisyHost.code429 + quiet.rejected + noisyHost.rejected,
      quietPassP50Ms: round(
        quantile(
          0.5,
          q.map((p) => p.ms),
        ),
      ),
      quietPassP99Ms: round(
        quantile(
          0.99,
          q.map((p) => p.ms),
        ),
      ),
      noisyPassP50Ms: round(
        quantile(
          0.5,
          n.map((p) => p.ms),
        ),
      ),
      noisyPassP99Ms: round(
        quantile(
          0.99,
          n.map((p) => p.ms),
        ),
      ),
      followP99Ms: round(quantile(0.99, followQuiet)),
      followNoisyP99Ms: round(quantile(0.99, followNoisy)),
      followPhases: followPhases(fleet.probes, fleet.passes),
      passMemoryMiB: memory.heapMiB,
      passMaxRssMiB: memory.maxRssMiB,
      hostRequestsPerQuietPass: mean(q.map((p) => p.hostReads + p.hostWrites)),
      tenantReadsPerQuietPass: mean(q.map((p) => p.tenantReads)),
      quiet,
      noisy: noisyHost,
      quietTenantSide,
      cpu: { quiet: quietCpu, noisy: cpuBusy(cpuBefore, cpuAfter) },
      noisyTenant: {
        passes: noisyOwn.length,
        hostWrites: noisyOwn.reduce((a, p) => a + p.hostWrites, 0),
        p99Ms: round(
          quantile(
            0.99,
            noisyOwn.map((p) => p.ms),
          ),
        ),
        burstSeconds: Math.round(burstMs / 1000),
      },
      passes: {
        quiet: q.length,
        noisy: n.length,
        dropped: fleet.dropped,
        failed: fleet.failures,
        incomplete: fleet.passes.filter((p) => !p.complete && p.phase !== 'warm-up').length,
      },
      quietLoopDelayP99Ms,
      quietPaths: countBy(q.map((p) => p.path)),
      quietPathReasons: countBy(
        q.flatMap((p) => (p.pathReason ?? '').split('; ').filter((r) => r !== '')),
      ),
      benchRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
      planeRssMiB: Math.round(planeRss),
      wallSeconds: 0,
    };
  } finally {
    await fleet.stop();
    await hostApi.close();
  }
}
