/**
 * Follow-mode latency benchmark (issue 29): on one throw-away local control plane with workloads
 * (host scheduler, controller managers and kwok; the tenant's controller manager), with the engine
 * following the tenant (`runFollow`), in one run. Not a test: it asserts nothing, it prints
 * figures (a markdown table, then one JSON line).
 *
 *   npm run bench:latency [-- --objects 10000 --changes 200 --pods 200 --idle-seconds 60]
 *   npm run bench:latency -- --quick     # a smoke run: small counts, a minute or two
 *
 * The TenantCluster syncs ConfigMaps and Pods. `--objects` ConfigMaps are seeded and converged by
 * one ordinary pass (timed), then the follow starts, and:
 * - (d) idle: the engine's requests over `--idle-seconds` with nothing changing;
 * - (a) tenant write to host write: `--changes` ConfigMap edits, one every `--spacing-ms`, from
 *   each PUT's response to a host watch of the bench's own delivering the copy's new value;
 * - (b) host Ready to tenant Ready: a tenant Deployment scaled to `--pods` in steps of
 *   `--pod-step`, from a host watch showing a host Pod Ready to a tenant watch showing its tenant
 *   Pod Ready (its Pods then left running);
 * - (c) rolling update: a `--replicas` Deployment (default strategy) given a new image, from the
 *   write's response to a watch showing it rolled out as `kubectl rollout status` waits for it, in
 *   the tenant (followed) and the same Deployment in a host namespace of its own (native), each
 *   `--rollouts` times, alternating; medians and their ratio.
 * All times are `performance.now()` in this process; watches deliver within milliseconds on
 * loopback, on both sides alike.
 */
import { parseArgs } from 'node:util';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { followTriggers } from '../../lib/engine/follow/triggers.js';
import { parseSyncPolicy, runFollow, runPass } from '../../lib/engine/index.js';
import { LocalKubeconfigSource } from '../../lib/localcluster/index.js';
import { TENANT_CLUSTER } from '../../lib/ports/index.js';
import { idleFollow, readyLatency, rolloutLatency, writeLatency } from './latency-phases.js';
import { percentile, spread } from './latency-watch.js';
import { addBenchNodes, POD } from './pod-scenario.js';
import {
  BENCH_TENANT,
  CONFIGMAP,
  NAMESPACES,
  PAYLOAD_BYTES,
  withBenchClusters,
} from './scenario.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    objects: { type: 'string' },
    changes: { type: 'string' },
    'spacing-ms': { type: 'string' },
    pods: { type: 'string' },
    'pod-step': { type: 'string' },
    'idle-seconds': { type: 'string' },
    replicas: { type: 'string' },
    rollouts: { type: 'string' },
  },
});
/** Issue 29's counts, or a smoke run's with `--quick`; a flag given wins over both. */
const defaults = values.quick
  ? { objects: 500, changes: 20, spacingMs: 75, pods: 20, podStep: 10, idle: 10, rollouts: 1 }
  : { objects: 10_000, changes: 200, spacingMs: 75, pods: 200, podStep: 50, idle: 60, rollouts: 3 };
const num = (flag: string | undefined, fallback: number) => {
  const n = flag === undefined ? fallback : Number(flag);
  if (!Number.isFinite(n) || n < 0) throw new Error(`not a count: ${flag}`);
  return n;
};
const objects = num(values.objects, defaults.objects);
const changes = num(values.changes, defaults.changes);
const spacingMs = num(values['spacing-ms'], defaults.spacingMs);
const pods = num(values.pods, defaults.pods);
const podStep = Math.max(1, num(values['pod-step'], defaults.podStep));
const idleSeconds = num(values['idle-seconds'], defaults.idle);
const replicas = num(values.replicas, 10);
const rollouts = Math.max(1, num(values.rollouts, defaults.rollouts));
const NATIVE_NAMESPACE = 'bench-native';

/** What the bench measures while a follow pass runs (its passes' durations are kept apart). */
type Phase = 'idle' | 'write' | 'ready' | 'rollout';

const median = (xs: number[]) => percentile(xs, 0.5);
const ms = (v: number) => (Number.isNaN(v) ? '-' : `${Math.round(v).toLocaleString('en-US')} ms`);

await withBenchClusters(
  objects,
  async (clusters) => {
    const { state, tenantApi, hostApi } = clusters;
    const source = new LocalKubeconfigSource(state);
    const drivers = {
      tenant: createClusterApi(await source.load('tenant')),
      host: createClusterApi(await source.load('host')),
    };
    // Room for every Pod of the bench on one node of its own (the plane's three hold 110 each).
    await addBenchNodes(drivers.host, pods + 2 * replicas);

    const t0 = performance.now();
    const first = await runPass({ tenant: BENCH_TENANT, tenantApi, hostApi });
    const firstMs = performance.now() - t0;
    console.error(`[latency] first pass: ${ms(firstMs)}, ${first.counts.Create} creates`);

    const tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, BENCH_TENANT);
    const policy = parseSyncPolicy(BENCH_TENANT, tenantCluster?.spec);
    const generation = Number(tenantCluster?.metadata.generation ?? 0);
    const watches = followTriggers(BENCH_TENANT, policy, generation).length;

    const abort = new AbortController();
    let passes = 0;
    let failedPasses = 0;
    /** Each follow pass's own duration: a change that arrives during one waits for the next. */
    const passMs: Record<Phase, number[]> = { idle: [], write: [], ready: [], rollout: [] };
    let phase: Phase = 'idle';
    const following = runFollow({
      tenant: BENCH_TENANT,
      tenantApi,
      hostApi,
      signal: abort.signal,
      onPass: (result) => {
        passes += 1;
        passMs[phase].push(result.durationMs);
        if (!result.complete || result.errors.length > 0) {
          failedPasses += 1;
          console.error(
            `[latency] pass incomplete: ${result.incompleteReason ?? ''}`,
            result.errors.slice(0, 3),
          );
        }
      },
    });
    try {
      const started = performance.now();
      while (passes === 0 && performance.now() - started < 120_000) {
        await new Promise((r) => setTimeout(r, 100));
      }
      // The follow records its start and first pass on the TenantCluster: past that, it is idle.
      await new Promise((r) => setTimeout(r, 3000));
      const idle = await idleFollow({ tenantApi, hostApi }, idleSeconds, () => passes);
      console.error(`[latency] idle: ${JSON.stringify(idle)}`);
      phase = 'write';
      const write = await writeLatency(drivers, objects, changes, spacingMs);
      console.error(`[latency] write: ${JSON.stringify(spread(write.latencies))}`);
      phase = 'ready';
      const ready = await readyLatency(drivers, NAMESPACES[0] as string, pods, podStep);
      console.error(`[latency] ready: ${JSON.stringify(spread(ready.latencies))}`);
      phase = 'rollout';
      const roll = await rolloutLatency(
        drivers,
        { tenant: NAMESPACES[1] as string, host: NATIVE_NAMESPACE },
        replicas,
        rollouts,
      );
      abort.abort();
      const result = await following;
      report({
        firstMs,
        firstCreates: first.counts.Create,
        watches,
        idle,
        write,
        ready,
        roll,
        result,
        failedPasses,
        passMs,
      });
    } finally {
      abort.abort();
      await following.catch(() => undefined);
      await Promise.all([drivers.tenant.close(), drivers.host.close()]);
    }
  },
  PAYLOAD_BYTES,
  { workloads: true, toHost: [CONFIGMAP, POD] },
);

type Figures = {
  firstMs: number;
  firstCreates: number;
  watches: number;
  idle: Awaited<ReturnType<typeof idleFollow>>;
  write: Awaited<ReturnType<typeof writeLatency>>;
  ready: Awaited<ReturnType<typeof readyLatency>>;
  roll: Awaited<ReturnType<typeof rolloutLatency>>;
  result: Awaited<ReturnType<typeof runFollow>>;
  failedPasses: number;
  passMs: Record<Phase, number[]>;
};

function report(f: Figures): void {
  const write = spread(f.write.latencies);
  const ready = spread(f.ready.latencies);
  const tenantRoll = median(f.roll.tenant);
  const hostRoll = median(f.roll.host);
  const ratio = tenantRoll / hostRoll;
  const minutes = f.idle.ms / 60_000;
  const perMin = (n: number) => (n / minutes).toFixed(1);
  const { tenant, host } = f.idle.requests;
  const met = (ok: boolean) => (ok ? 'met' : '**missed**');
  const all = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString('en-US')).join(', ');
  const lines = [
    '| measurement | n | p50 / median | p99 | max | target | |',
    '|---|---|---|---|---|---|---|',
    `| tenant write to host write (ConfigMap PUT response to host watch) | ${write.n} | ${ms(write.p50Ms)} | ${ms(write.p99Ms)} | ${ms(write.maxMs)} | p99 < 1 s | ${met(write.p99Ms < 1000 && f.write.missed === 0)} |`,
    `| host Pod Ready to tenant Pod Ready (watches on both sides) | ${ready.n} | ${ms(ready.p50Ms)} | ${ms(ready.p99Ms)} | ${ms(ready.maxMs)} | p99 < 1 s | ${met(ready.p99Ms < 1000)} |`,
    `| rolling update of ${replicas} replicas in the tenant, followed (ms: ${all(f.roll.tenant)}) | ${f.roll.tenant.length} | ${ms(tenantRoll)} | | ${ms(Math.max(...f.roll.tenant))} | | |`,
    `| the same Deployment rolled out on the host, native (ms: ${all(f.roll.host)}) | ${f.roll.host.length} | ${ms(hostRoll)} | | ${ms(Math.max(...f.roll.host))} | | |`,
    `| followed rollout / native rollout (medians) | | ${ratio.toFixed(2)}x | | | ≤ 1.3x | ${met(ratio <= 1.3)} |`,
    `| idle follow, ${objects.toLocaleString('en-US')} ConfigMaps, ${Math.round(f.idle.ms / 1000)} s: tenant reads/writes per min; host reads/writes per min; passes | | ${perMin(tenant.reads)}/${perMin(tenant.writes)}; ${perMin(host.reads)}/${perMin(host.writes)}; ${f.idle.passes} | | | 0 writes, ~1 read per watch per min (${f.watches} watches) | ${met(tenant.writes + host.writes === 0 && tenant.reads + host.reads <= Math.ceil(f.watches * minutes) + f.watches)} |`,
    `| the follow's own latency, change arrival to pass end (${f.result.passes} passes, ${f.result.changes} changes, ${f.result.gaps} gaps) | ${f.result.changes} | ${ms(f.result.latency?.p50Ms ?? Number.NaN)} | ${ms(f.result.latency?.p99Ms ?? Number.NaN)} | ${ms(f.result.latency?.maxMs ?? Number.NaN)} | | |`,
    ...(['write', 'ready', 'rollout'] as const).map((p) => {
      const s = spread(f.passMs[p]);
      return `| a follow pass while measuring ${p}: its own duration (\`PassResult.durationMs\`) | ${s.n} | ${ms(s.p50Ms)} | ${ms(s.p99Ms)} | ${ms(s.maxMs)} | | |`;
    }),
    `| first pass (unfollowed), ${f.firstCreates.toLocaleString('en-US')} creates | 1 | ${ms(f.firstMs)} | | | | |`,
  ];
  console.log(
    `objects=${objects} changes=${changes} spacingMs=${spacingMs} pods=${pods} podStep=${podStep} idleSeconds=${idleSeconds} replicas=${replicas} rollouts=${rollouts} node=${process.version}`,
  );
  console.log(lines.join('\n'));
  console.log(
    `write: PUT itself p50 ${ms(median(f.write.writeMs))}, ${f.write.missed} copies never seen; Ready: steps ${all(f.ready.steps)} ms; passes that left work or errors: ${f.failedPasses}; follow failures: ${f.result.failures.length}`,
  );
  console.log(
    JSON.stringify({
      bench: 'latency',
      objects,
      changes,
      spacingMs,
      pods,
      podStep,
      idleSeconds,
      replicas,
      rollouts,
      node: process.version,
      writeToHost: {
        ...write,
        missed: f.write.missed,
        putP50Ms: Math.round(median(f.write.writeMs)),
      },
      hostReadyToTenantReady: {
        ...ready,
        stepsMs: f.ready.steps.map(Math.round),
      },
      rollout: {
        tenantMs: f.roll.tenant.map(Math.round),
        hostMs: f.roll.host.map(Math.round),
        ratio: Number(ratio.toFixed(3)),
      },
      idle: {
        seconds: Math.round(f.idle.ms / 1000),
        requests: f.idle.requests,
        passes: f.idle.passes,
        watches: f.watches,
      },
      follow: {
        ...f.result,
        failedPasses: f.failedPasses,
        passMs: Object.fromEntries(Object.entries(f.passMs).map(([k, v]) => [k, spread(v)])),
      },
      firstPass: { ms: Math.round(f.firstMs), creates: f.firstCreates },
    }),
  );
}
