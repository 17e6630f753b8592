/**
 * Wake benchmark (issue 38): the deployed shape on a throw-away local plane. The tenant apiserver
 * posts its audit batches to the plane's wake endpoint; `npm run local:serverless` serves it and
 * runs the tenant's shipped function bundle as Lambda would (a fresh process per invocation, so
 * every invocation is a cold start). Not a test: it prints figures (a table, then one JSON line).
 *
 *   npm run bench:wake [-- --changes 50 --burst 500 --quiet-seconds 3 --idle-seconds 60
 *                         --background-ms 0]
 *
 * - (a) from idle: `--changes` ConfigMap edits, each once the previous invocation has ended and no
 *   function process runs, from the PUT's response to a host watch delivering the copy's new value;
 *   and its phases (`wake-phases.ts`): to the wake, the process start and import, the kubeconfigs,
 *   the pass until the copy's write, the host watch;
 * - (b) idle: `--idle-seconds` with nothing changing and the schedule every `--idle-schedule`
 *   seconds; invocations by reason. An hour is extrapolated from that window (said so in the output):
 *   its wakes scaled to an hour, plus the deployed schedule's ticks (`--deployed-schedule`, s);
 * - (c) burst: `--burst` new ConfigMaps created at once (32 at a time); the invocations it caused,
 *   and the time until every copy is on the host.
 */
import { parseArgs } from 'node:util';
import type { KubeClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../lib/engine/index.js';
import type { KubeObject } from '../../lib/ports/index.js';
import { functionProcesses, startServerless } from '../integration/wake/serverless-process.js';
import { observe, spread, until } from './latency-watch.js';
import {
  BENCH_TENANT,
  CONFIGMAP,
  configMap,
  HOST_NAMESPACE,
  pool,
  printTable,
  withBenchClusters,
} from './scenario.js';
import { functionLog, phaseRows, phasesOf, type WakePhases } from './wake-phases.js';

const { values } = parseArgs({
  options: {
    changes: { type: 'string', default: '50' },
    burst: { type: 'string', default: '500' },
    'quiet-seconds': { type: 'string', default: '3' },
    'idle-seconds': { type: 'string', default: '60' },
    'idle-schedule': { type: 'string', default: '10' },
    'deployed-schedule': { type: 'string', default: '300' },
    'background-ms': { type: 'string', default: '0' },
  },
});
const changes = Number(values.changes);
const burst = Number(values.burst);
const quietSeconds = Number(values['quiet-seconds']);
const idleSeconds = Number(values['idle-seconds']);
const idleSchedule = Number(values['idle-schedule']);
const deployedSchedule = Number(values['deployed-schedule']);
const backgroundMs = Number(values['background-ms']);
const SEEDED = 100;
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await withBenchClusters(SEEDED, async ({ state, tenantApi, hostApi }) => {
  const stateDir = state.stateDir;
  /** No invocation running, and every one started has written its line. */
  const idle = async () => {
    await until(
      'no function running',
      async () => functionProcesses(stateDir).length === 0,
      600_000,
      100,
    );
    await sleep(200);
  };
  const run = async (args: string[]) => {
    const serverless = startServerless(stateDir, [
      '--quiet-seconds',
      String(quietSeconds),
      ...args,
    ]);
    await serverless.ready;
    return serverless;
  };

  // The seeded objects are copied by the first wake (their creates were audited before any
  // endpoint listened: the schedule's first tick, kept short here, converges them).
  let serverless = await run(['--schedule-seconds', '5']);
  await until(
    'the seeded copies on the host',
    async () =>
      (await hostApi.list(CONFIGMAP, { namespace: HOST_NAMESPACE })).items.length >= SEEDED,
    300_000,
  );
  await idle();
  await serverless.terminate();

  // (b) idle.
  serverless = await run(['--schedule-seconds', String(idleSchedule)]);
  await sleep(idleSeconds * 1000);
  await idle();
  const idleLines = [...serverless.lines];
  await serverless.terminate();
  const idleWakes = idleLines.filter((l) => l.reason === 'wake').length;
  const idleTicks = idleLines.filter((l) => l.reason === 'schedule').length;
  const perHour = Math.round((idleWakes * 3600) / idleSeconds + 3600 / deployedSchedule);

  // (a) from idle. With --background-ms, a Lease renewed every so often (outside the audit policy),
  // as a real tenant's controller manager renews its leader lease: the cluster's resourceVersion
  // then moves past the change, and a resumed pass must wait for a watch bookmark to prove it is
  // current, which it need not on this otherwise silent plane.
  const background = backgroundMs > 0 ? backgroundWrites(tenantApi, backgroundMs) : undefined;
  const latencies: number[] = [];
  const deliveries: number[] = [];
  const phases: WakePhases[] = [];
  let fromIdle: typeof serverless.lines = [];
  try {
    serverless = await run(['--schedule-seconds', '3600']);
    await idle();
    const target = configMap(0, 'v1');
    const ns = target.metadata.namespace as string;
    const copy = hostName(target.metadata.name, ns, BENCH_TENANT);
    for (let i = 0; i < changes; i++) {
      const value = `wake-${i}`;
      let arrived: ((at: number) => void) | undefined;
      const seen = new Promise<number>((resolve) => {
        arrived = resolve;
      });
      const watcher = observe(
        hostApi,
        CONFIGMAP,
        { namespace: HOST_NAMESPACE, fieldSelector: `metadata.name=${copy}` },
        ({ object }, at) => {
          if ((object?.data as Record<string, string> | undefined)?.value === value) arrived?.(at);
        },
      );
      await sleep(100);
      const before = serverless.lines.length;
      const logged = serverless.stderr.length;
      const functionLogged = (await functionLog(stateDir, BENCH_TENANT)).bytes;
      const current = (await tenantApi.get(CONFIGMAP, ns, target.metadata.name)) as KubeObject;
      await tenantApi.update({ ...current, data: { ...(current.data as object), value } });
      const t0 = performance.now();
      const wall0 = Date.now();
      const seenMs = (await seen) - t0;
      latencies.push(seenMs);
      // The endpoint's log says when the audit batch woke the tenant: the delivery's share.
      const invoked = serverless.stderr
        .slice(logged)
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { time?: string; outcome?: string; route?: string })
        .find((entry) => entry.outcome === 'invoked' && entry.route === undefined);
      const invokedAt = invoked?.time ? Date.parse(invoked.time) : undefined;
      if (invokedAt !== undefined) deliveries.push(invokedAt - wall0);
      await watcher.stop();
      await until(
        'the invocation ended',
        async () => serverless.lines.length > before,
        120_000,
        100,
      );
      const { lines } = await functionLog(stateDir, BENCH_TENANT, functionLogged);
      phases.push(phasesOf(lines, target.metadata.name, wall0, invokedAt, seenMs));
      await idle();
    }
    fromIdle = serverless.lines;
    await serverless.terminate();
  } finally {
    await background?.stop();
  }

  // (c) burst.
  serverless = await run(['--schedule-seconds', '3600']);
  await idle();
  const t0 = performance.now();
  const indexes = Array.from({ length: burst }, (_, i) => 10_000 + i);
  await pool(indexes, 32, async (i) => {
    await tenantApi.create(configMap(i, 'burst'));
  });
  const written = performance.now() - t0;
  await until(
    'the burst on the host',
    async () =>
      (await hostApi.list(CONFIGMAP, { namespace: HOST_NAMESPACE })).items.length >= SEEDED + burst,
    300_000,
  );
  const converged = performance.now() - t0;
  await sleep((quietSeconds + 5) * 1000);
  await idle();
  const burstLines = [...serverless.lines];
  await serverless.terminate();

  const lat = spread(latencies);
  const cold = fromIdle.map((l) => l.durationMs);
  printTable(
    ['measure', 'figure'],
    [
      [
        `from idle: tenant write to host write, ${lat.n} changes (cold starts${backgroundMs > 0 ? `, a background write every ${backgroundMs} ms` : ''})`,
        `p50 ${lat.p50Ms} ms, p99 ${lat.p99Ms} ms, max ${lat.maxMs} ms`,
      ],
      [
        'from idle: write to the wake (audit batch delivered, function invoked)',
        `p50 ${spread(deliveries).p50Ms} ms, p99 ${spread(deliveries).p99Ms} ms (${deliveries.length})`,
      ],
      ...phaseRows(phases),
      [
        'from idle: invocations (all cold)',
        `${fromIdle.length} (wake ${fromIdle.filter((l) => l.reason === 'wake').length}), duration p50 ${spread(cold).p50Ms} ms`,
      ],
      [
        `idle ${idleSeconds} s, schedule every ${idleSchedule} s`,
        `${idleWakes} wake, ${idleTicks} schedule invocations`,
      ],
      [
        `idle, an hour extrapolated (schedule every ${deployedSchedule} s)`,
        `${perHour} invocations`,
      ],
      [
        `burst of ${burst} creates (written in ${Math.round(written)} ms)`,
        `${burstLines.length} invocations (${burstLines.map((l) => l.reason).join(', ')}), all on the host after ${Math.round(converged)} ms`,
      ],
    ],
  );
  console.log(
    JSON.stringify({
      fromIdle: {
        ...lat,
        wake: spread(deliveries),
        phases: Object.fromEntries(phaseRows(phases)),
        invocations: fromIdle.length,
        durationP50Ms: spread(cold).p50Ms,
      },
      idle: {
        seconds: idleSeconds,
        schedule: idleSchedule,
        wakes: idleWakes,
        ticks: idleTicks,
        perHourExtrapolated: perHour,
        deployedSchedule,
      },
      burst: {
        creates: burst,
        invocations: burstLines.length,
        reasons: burstLines.map((l) => l.reason),
        writtenMs: Math.round(written),
        convergedMs: Math.round(converged),
      },
      quietSeconds,
      backgroundMs,
    }),
  );
});

/**
 * Renews a Lease in kube-system every `everyMs` until stopped, as a controller manager renews
 * its leader lease: not a synced kind (no audit event, no copy, no follow woken).
 */
function backgroundWrites(api: KubeClusterApi, everyMs: number) {
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const metadata = { name: 'bench-background', namespace: 'kube-system' };
      try {
        const current = await api.get(LEASE, metadata.namespace, metadata.name);
        const spec = { holderIdentity: 'bench', leaseDurationSeconds: 1 + (i % 60) };
        const object = { ...LEASE, ...(current ?? { metadata }), spec };
        await (current ? api.update(object) : api.create(object));
      } catch (error) {
        // Noise only: a failed write is not the bench's failure (it says so and goes on).
        console.error(`[bench] background write failed: ${String(error)}`);
      }
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
