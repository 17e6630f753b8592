/**
 * Comparison benchmark (issue 12): the engine's passes side by side with their LIST floor and a
 * kubectl-based cron peer, on one throw-away local control plane, in one run. Not a test: it
 * asserts nothing, it prints figures (a markdown table, then one JSON line).
 *
 *   npm run bench:compare -- --objects 1000 [--reps 3] [--page-size 500] [--concurrency 8]
 *     [--kubectl-batch 0] [--kubectl-reps R] [--only steady]
 *
 * `--cpu-prof FILE` writes a CPU profile (`.cpuprofile`, for Chrome DevTools) of the full steady
 * passes alone, every rep in one profile: where a steady pass spends its time beyond the floor's.
 *
 * `--only steady` measures the first pass, then the steady pass and its LIST floor alone: no
 * kubectl peer, no churn rows (the slow parts when profiling the steady pass at scale).
 *
 *   npm run bench:compare -- --pods 2000 [--only steady|status] [...]
 *
 * `--only status` (issue 19, with `--pods`) measures the back direction alone: the resumed steady
 * pass over Running Pods, the status floor (one label-selected, paged LIST of the tenant's host
 * Pods plus the tenant Pod watch resumed from the pass's stored point up to its bookmark, one
 * after the other), and the resumed
 * pass after 1% of the host Pods changed status (a condition patched on them, as a kubelet
 * would), whose tenant writes must be exactly those Pods' status writes.
 *
 * `--pods N` (issue 18) syncs N Pods, their N ConfigMaps and N/10 Services (`pod-scenario.ts`; N a
 * multiple of 100) on a host that schedules them (kube-scheduler, kwok), instead of N ConfigMaps
 * alone: the floor lists all three kinds on both sides, the kubectl peer lists and applies all
 * three, and the steady rows start once every host Pod runs and a pass wrote nothing (the Pods'
 * status back to the tenant converged, unmeasured). The churn rows change ConfigMaps, as without.
 *
 * Scenario (`scenario.ts`): N ConfigMaps with ~200-byte payloads in 10 tenant namespaces, seeded
 * 32 creates at a time, TenantCluster `bench` syncing them into host namespace `tenant-bench`.
 * Rows:
 * - first pass (N creates) of `runPass`, and the same job done by the kubectl peer
 *   (`kubectl-peer.ts`) into its own empty host namespace `tenant-bench-kubectl`; each once, since
 *   a first pass happens once per namespace;
 * - steady pass (`runPass` with `full: true`, nothing changed: both sides listed in full, whatever
 *   runPass defaults to), the LIST floor (every page of the host namespace,
 *   then every page of the tenant, with the same clients and page size as the pass, nothing
 *   else), and the kubectl peer's steady run, interleaved, R times;
 * - the same full steady pass in a warm process: `runPass` with an in-sync memo kept across
 *   passes (`context/in-sync-memo.ts`; filled by one unmeasured full pass first), as a Lambda
 *   container runs between invocations, R times, interleaved too;
 * - the incremental steady pass (`runPass` resumed from the point the full pass before it
 *   stored: a watch of the tenant from that resourceVersion, no LIST), R times, interleaved too;
 * - passes after 1% and after 10% of the tenant objects changed (data updated) and after 1% were
 *   deleted, as runPass runs them by default (resumed, falling back to full where it must), R
 *   times (the deleted ones are recreated and converged, unmeasured, between reps), each compared
 *   with the full steady pass.
 *   The 1% rows need N of at least 100 (indexes i % 100 == 0 and == 50).
 * Times and request counts are medians over the reps. Requests are `ClusterApi.requestCount()`
 * deltas of the bench's clients (status and bookkeeping writes included) or, for kubectl, its
 * `-v=6` log. RSS: the peak of this process sampled during the row (for a kubectl row that is the
 * rename step), kubectl's own peak (`/usr/bin/time`), and `process.resourceUsage().maxRSS`, the
 * process's high-water mark after the row.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import {
  compileKindRule,
  hostName,
  InSyncMemo,
  parseSyncPolicy,
  runPass,
} from '../../lib/engine/index.js';
import { WATCH_TIMEOUT_SECONDS } from '../../lib/engine/listing/tenant-listing.js';
import type { CompiledKindRule } from '../../lib/engine/policy/scope.js';
import type {
  ClusterApi,
  KindRef,
  KubeObject,
  PassResult,
  RequestCount,
} from '../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../lib/ports/index.js';
import { type PeerRun, runKubectlPeer } from './kubectl-peer.js';
import {
  addBenchNodes,
  benchPod,
  POD,
  SERVICE,
  seedPods,
  serviceCount,
  waitForRunningPods,
} from './pod-scenario.js';
import {
  BENCH_TENANT,
  type BenchClusters,
  CONFIGMAP,
  configMap,
  HOST_NAMESPACE,
  PAYLOAD_BYTES,
  pool,
  withBenchClusters,
} from './scenario.js';

const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '1000' },
    reps: { type: 'string', default: '3' },
    'page-size': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
    'kubectl-batch': { type: 'string', default: '0' },
    'kubectl-reps': { type: 'string' },
    only: { type: 'string' },
    pods: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
/** N Pods, N ConfigMaps and N/10 Services instead of N ConfigMaps (see the module doc). */
const pods = values.pods === undefined ? undefined : Number(values.pods);
if (pods !== undefined && !(Number.isInteger(pods) && pods >= 100 && pods % 100 === 0)) {
  throw new Error(`--pods takes a multiple of 100, not ${JSON.stringify(values.pods)}`);
}
/** The kinds a pass syncs, in the order it lists them (referenced kinds first). */
const KINDS = pods === undefined ? [CONFIGMAP] : [CONFIGMAP, SERVICE, POD];
if (values.only !== undefined && values.only !== 'steady' && values.only !== 'status') {
  throw new Error(`--only takes "steady" or "status", not ${JSON.stringify(values.only)}`);
}
if (values.only === 'status' && values.pods === undefined) {
  throw new Error('--only status needs --pods');
}
/** Skip the kubectl peer and the churn rows. */
const statusOnly = values.only === 'status';
const steadyOnly = values.only === 'steady' || statusOnly;
const objects = pods ?? Number(values.objects);
const reps = Math.max(1, Number(values.reps));
const pageSize = Number(values['page-size']);
const concurrency = Number(values.concurrency);
const kubectlBatch = Number(values['kubectl-batch']);
const kubectlReps = Math.max(1, Number(values['kubectl-reps'] ?? reps));
const PEER_NAMESPACE = `${HOST_NAMESPACE}-kubectl`;
const MiB = 1024 * 1024;

interface Sample {
  ms: number;
  tenant: RequestCount;
  host: RequestCount;
  /** Peak RSS of this process sampled during the sample, bytes. */
  rssPeak: number;
  /** kubectl's own peak RSS, bytes (kubectl rows only). */
  kubectlRss?: number;
  /** Create/Update/Delete/Skip of a pass, or "applied N" of the peer. */
  outcome: string;
}

interface Row {
  label: string;
  samples: Sample[];
  /** `process.resourceUsage().maxRSS` after the row, bytes. */
  maxRss: number;
  /** Label of the row this one is compared with. */
  baseline?: string;
  note?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN;
};
const maxRssNow = () => process.resourceUsage().maxRSS * 1024;

/** Runs `work` while sampling this process's RSS every 20 ms. */
async function sampled<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; rss: number }> {
  let rss = process.memoryUsage.rss();
  const timer = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage.rss());
  }, 20);
  const t0 = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - t0;
    return { value, ms, rss: Math.max(rss, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

function delta(api: ClusterApi, before: RequestCount): RequestCount {
  const after = api.requestCount();
  return { reads: after.reads - before.reads, writes: after.writes - before.writes };
}

/**
 * Orders of four measurements, one per rep in turn: a balanced Latin square (Williams), in which
 * each measurement is first once and follows each other one once.
 */
const BALANCED_ORDERS: readonly (readonly number[])[] = [
  [0, 1, 3, 2],
  [1, 2, 0, 3],
  [2, 3, 1, 0],
  [3, 0, 2, 1],
];

/** The inspector session of `--cpu-prof`, its profiler started once and kept paused between. */
let profiler: Session | undefined;

/** Runs `work` under the CPU profiler when `--cpu-prof` asks for one. */
async function profiled<T>(work: () => Promise<T>): Promise<T> {
  if (values['cpu-prof'] === undefined) return work();
  if (!profiler) {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
  }
  await profiler.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await profiler.post('Profiler.stop');
    profiles.push(profile);
  }
}
const profiles: unknown[] = [];

/**
 * A full pass (both sides listed in full, never resumed from a watch), or with `incremental` the
 * pass runPass makes by default: resumed where a stored resume point allows.
 */
async function passSample(
  clusters: BenchClusters,
  incremental = false,
  memo?: InSyncMemo,
): Promise<Sample> {
  const { tenantApi, hostApi } = clusters;
  const before = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
  const run = await sampled(() =>
    runPass({
      tenant: BENCH_TENANT,
      tenantApi,
      hostApi,
      budget: { pageSize, concurrency },
      ...(incremental ? {} : { path: 'full' as const }),
      ...(memo ? { memo } : {}),
    }),
  );
  const r: PassResult = run.value;
  if (!r.complete || r.errors.length > 0) {
    console.error(
      `[compare] incomplete pass: ${r.incompleteReason ?? ''} ${r.errors.length} errors`,
    );
  }
  const { Create, Update, Delete, Skip } = r.counts;
  return {
    ms: run.ms,
    tenant: delta(tenantApi, before.tenant),
    host: delta(hostApi, before.host),
    rssPeak: run.rss,
    outcome: `${Create}/${Update}/${Delete}/${Skip}${r.path ? ` (${r.path})` : ''}`,
  };
}

/**
 * Every page of the host namespace, then of the tenant, kind after kind (the order a pass lists
 * them in).
 */
async function floorSample(clusters: BenchClusters): Promise<Sample> {
  const { tenantApi, hostApi } = clusters;
  const before = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
  const listAll = async (api: ClusterApi, namespace?: string) => {
    let n = 0;
    for (const kind of KINDS) n += await listKind(api, kind, namespace);
    return n;
  };
  const listKind = async (api: ClusterApi, kind: KindRef, namespace?: string) => {
    let n = 0;
    let continueToken: string | undefined;
    do {
      const page = await api.list(kind, {
        limit: pageSize,
        ...(namespace ? { namespace } : {}),
        ...(continueToken ? { continueToken } : {}),
      });
      n += page.items.length;
      continueToken = page.continueToken;
    } while (continueToken);
    return n;
  };
  const run = await sampled(async () => [
    await listAll(hostApi, HOST_NAMESPACE),
    await listAll(tenantApi),
  ]);
  return {
    ms: run.ms,
    tenant: delta(tenantApi, before.tenant),
    host: delta(hostApi, before.host),
    rssPeak: run.rss,
    outcome: `listed ${run.value[0]}+${run.value[1]}`,
  };
}

async function peerSample(
  clusters: BenchClusters,
  rules: ReadonlyMap<string, CompiledKindRule>,
): Promise<Sample> {
  const { state } = clusters;
  const run = await sampled(() =>
    runKubectlPeer({
      kubectl: state.binaries.kubectl,
      tenantKubeconfig: state.clusters.tenant.kubeconfig,
      hostKubeconfig: state.clusters.host.kubeconfig,
      tenant: BENCH_TENANT,
      hostNamespace: PEER_NAMESPACE,
      rules,
      resources: pods === undefined ? 'configmaps' : 'configmaps,services,pods',
      pageSize,
      batch: kubectlBatch,
    }),
  );
  const p: PeerRun = run.value;
  console.error(
    `[compare] kubectl peer: get ${Math.round(p.getMs)} ms, rename ${Math.round(p.transformMs)} ms, apply ${Math.round(p.applyMs)} ms`,
  );
  return {
    ms: run.ms,
    tenant: p.tenant,
    host: p.host,
    rssPeak: run.rss,
    ...(p.kubectlMaxRssKiB === undefined ? {} : { kubectlRss: p.kubectlMaxRssKiB * 1024 }),
    outcome: `applied ${p.applied}`,
  };
}

/** Gives `indexes` new data in the tenant (one Update each on the next pass). */
async function change(clusters: BenchClusters, indexes: number[], value: string): Promise<void> {
  const { tenantApi } = clusters;
  await pool(indexes, 32, async (i) => {
    const cm = configMap(i, value);
    const current = await tenantApi.get(CONFIGMAP, cm.metadata.namespace, cm.metadata.name);
    cm.metadata.resourceVersion = current?.metadata.resourceVersion;
    await tenantApi.update(cm);
  });
}

async function remove(clusters: BenchClusters, indexes: number[]): Promise<void> {
  const { tenantApi } = clusters;
  await pool(indexes, 32, async (i) => {
    const { namespace, name } = configMap(i, '').metadata;
    const current = await tenantApi.get(CONFIGMAP, namespace, name);
    await tenantApi.delete(CONFIGMAP, namespace, name, { uid: current?.metadata.uid ?? '' });
  });
}

async function recreate(clusters: BenchClusters, indexes: number[]): Promise<void> {
  await pool(indexes, 32, async (i) => {
    await clusters.tenantApi.create(configMap(i, 'v1'));
  });
}

const fmtMs = (ms: number) =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms).toLocaleString('en-US')} ms`;
const fmtMiB = (bytes: number | undefined) =>
  bytes === undefined ? '-' : String(Math.round(bytes / MiB));
const rw = (c: RequestCount) => `${c.reads}/${c.writes}`;

function summarize(row: Row) {
  const s = row.samples;
  const kubectl = s.map((x) => x.kubectlRss).filter((x): x is number => x !== undefined);
  return {
    label: row.label,
    n: s.length,
    ms: median(s.map((x) => x.ms)),
    msAll: s.map((x) => Math.round(x.ms)),
    tenant: {
      reads: median(s.map((x) => x.tenant.reads)),
      writes: median(s.map((x) => x.tenant.writes)),
    },
    host: {
      reads: median(s.map((x) => x.host.reads)),
      writes: median(s.map((x) => x.host.writes)),
    },
    outcome: s.at(-1)?.outcome ?? '',
    rssPeakMiB: Math.round(Math.max(...s.map((x) => x.rssPeak)) / MiB),
    kubectlRssMiB: kubectl.length > 0 ? Math.round(Math.max(...kubectl) / MiB) : undefined,
    maxRssMiB: Math.round(row.maxRss / MiB),
    baseline: row.baseline,
    note: row.note,
  };
}

/** The labels of the tenant's host Pods, as the pass selects them. */
const HOST_POD_SELECTOR = `app.kubernetes.io/managed-by=tenantplane,tenantplane.io/tenant=${BENCH_TENANT},tenantplane.io/kind=Pod`;

/**
 * The status floor: every page of the tenant's host Pods (label-selected, as the pass lists
 * them), then the tenant Pod watch resumed from the Pod kind's stored point (the one the next pass
 * resumes from) up to its bookmark.
 */
async function statusFloorSample(clusters: BenchClusters): Promise<Sample> {
  const { tenantApi, hostApi } = clusters;
  const tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, BENCH_TENANT);
  const before = { tenant: tenantApi.requestCount(), host: hostApi.requestCount() };
  const run = await sampled(async () => {
    let listed = 0;
    let continueToken: string | undefined;
    do {
      const page = await hostApi.list(POD, {
        namespace: HOST_NAMESPACE,
        labelSelector: HOST_POD_SELECTOR,
        limit: pageSize,
        ...(continueToken ? { continueToken } : {}),
      });
      listed += page.items.length;
      continueToken = page.continueToken;
    } while (continueToken);
    // The resumed watch a pass makes: from the Pod kind's stored resume point to its bookmark.
    const at =
      resumePointOf(tenantCluster) ??
      (await tenantApi.list(POD, { limit: 1 })).resourceVersion ??
      '';
    const watched = await tenantApi.watchChanges?.(POD, {
      resourceVersion: at,
      // As the pass's own resumed watch: its bookmark comes 2 s before this timeout.
      timeoutSeconds: WATCH_TIMEOUT_SECONDS,
      allowWatchBookmarks: true,
    });
    return `listed ${listed}, watch ${watched?.resumed ? 'resumed' : 'failed'}`;
  });
  return {
    ms: run.ms,
    tenant: delta(tenantApi, before.tenant),
    host: delta(hostApi, before.host),
    rssPeak: run.rss,
    outcome: run.value,
  };
}

/** The tenant resourceVersion a pass resumes the Pod kind from (`status.resume`). */
function resumePointOf(tenantCluster: KubeObject | undefined): string | undefined {
  const status = tenantCluster?.status as
    | { resume?: Record<string, { resourceVersion?: string }> }
    | undefined;
  return status?.resume?.['v1/Pod']?.resourceVersion;
}

/** A kubelet's status change on the host Pods of `indexes`: a condition of the bench's own. */
async function changeHostStatus(clusters: BenchClusters, indexes: number[], value: string) {
  const { hostApi } = clusters;
  await pool(indexes, 16, async (i) => {
    const pod = benchPod(i, serviceCount(pods ?? 100));
    const name = hostName(pod.metadata.name, pod.metadata.namespace ?? '', BENCH_TENANT);
    const host = await hostApi.get(POD, HOST_NAMESPACE, name);
    const status = (host?.status ?? {}) as { conditions?: { type: string }[] };
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'BenchProbe');
    conditions.push({ type: 'BenchProbe', status: 'True', message: value } as { type: string });
    await hostApi.patchStatus(POD, HOST_NAMESPACE, name, { conditions });
  });
}

/**
 * Before the steady rows of `--pods`: every host Pod (the pass's and the peer's) runs, and full
 * passes (unmeasured) write the Pods' status back until one decides nothing and writes nothing in
 * the tenant.
 */
async function settlePods(clusters: BenchClusters, count: number): Promise<void> {
  const { hostApi } = clusters;
  await waitForRunningPods(hostApi, HOST_NAMESPACE, count);
  if (!steadyOnly) await waitForRunningPods(hostApi, PEER_NAMESPACE, count);
  for (let n = 1; n <= 10; n += 1) {
    const sample = await passSample(clusters);
    console.error(
      `[compare] settling pass ${n}: tenant ${rw(sample.tenant)}, host ${rw(sample.host)}, ${sample.outcome}`,
    );
    // No Decision and no tenant write: what is left on the host is the full pass's status write
    // (its resume point), which every full steady pass makes.
    if (sample.tenant.writes === 0 && sample.outcome.startsWith('0/0/0/0')) return;
  }
  console.error('[compare] the Pods did not settle in 10 passes: the steady rows are not steady');
}

const benchOptions = pods === undefined ? {} : { workloads: true, toHost: KINDS };
/** The bench's control plane, with the Pod scenario's options under `--pods`. */
const withClusters = (body: (clusters: BenchClusters) => Promise<void>) =>
  withBenchClusters(objects, body, PAYLOAD_BYTES, benchOptions);
await withClusters(async (clusters) => {
  const { tenantApi, hostApi, state } = clusters;
  await hostApi.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: PEER_NAMESPACE },
  });
  if (pods !== undefined) {
    await addBenchNodes(hostApi, pods);
    await seedPods(tenantApi, pods);
  }
  const tenantCluster = await hostApi.get(TENANT_CLUSTER, undefined, BENCH_TENANT);
  const policy = parseSyncPolicy(BENCH_TENANT, tenantCluster?.spec);
  const rules = new Map(policy.toHost.map((r) => [r.kind, compileKindRule(r)]));
  if (!rules.has('ConfigMap')) throw new Error('the bench TenantCluster does not sync ConfigMaps');

  const rows = new Map<string, Row>();
  const add = async (label: string, take: () => Promise<Sample>, extra: Partial<Row> = {}) => {
    const sample = await take();
    const row = rows.get(label) ?? { label, samples: [], maxRss: 0, ...extra };
    row.samples.push(sample);
    row.maxRss = maxRssNow();
    rows.set(label, row);
    console.error(
      `[compare] ${label}: ${fmtMs(sample.ms)}, tenant ${rw(sample.tenant)}, host ${rw(sample.host)}, ${sample.outcome}`,
    );
  };
  const FIRST = 'first pass (runPass), N creates';
  const PEER_FIRST = 'kubectl peer, first run (N server-side applies)';
  const STEADY = 'steady pass (runPass), nothing changed';
  const WARM = 'steady pass, warm process (runPass with its in-sync memo)';
  const FLOOR = 'LIST floor (host + tenant pages, same client and page size)';
  const PEER_STEADY = 'kubectl peer, steady run';
  const INCREMENTAL = 'incremental steady pass (runPass resumed), nothing changed';
  const CHANGED_1 = 'pass after 1% changed';
  const CHANGED_10 = 'pass after 10% changed';
  const DELETED_1 = 'pass after 1% deleted';
  const STATUS_FLOOR = 'status floor (host Pods LIST + resumed tenant watch)';
  const STATUS_1 = 'pass after 1% of host Pods changed status (runPass resumed)';

  // (a) First passes, each into its own empty host namespace.
  await add(FIRST, () => passSample(clusters), { baseline: FIRST });
  if (!steadyOnly) await add(PEER_FIRST, () => peerSample(clusters, rules), { baseline: FIRST });
  if (pods !== undefined) await settlePods(clusters, pods);

  // The memo of a warm process (a Lambda container between invocations): filled by one full pass.
  const memo = new InSyncMemo();
  if (!statusOnly) {
    await passSample(clusters, false, memo);
    console.error(`[compare] in-sync memo: ${memo.size} entries after the filling pass`);
  }

  // (b), (c) Steady state, interleaved so drift in the machine's load spreads over all four, in
  // orders from rep to rep that put each measurement first and after each other one equally often
  // (a balanced Latin square): what a measurement follows (the resumed pass's watches, the floor's
  // garbage) weighs on it.
  const steadyRows: [string, () => Promise<Sample>][] = [
    [STEADY, () => profiled(() => passSample(clusters))],
    [WARM, () => passSample(clusters, false, memo)],
    [FLOOR, () => floorSample(clusters)],
    [INCREMENTAL, () => passSample(clusters, true)],
  ];
  for (let r = 0; r < (statusOnly ? 0 : reps); r += 1) {
    for (const i of BALANCED_ORDERS[r % BALANCED_ORDERS.length] ?? []) {
      const [label, sample] = steadyRows[i] as (typeof steadyRows)[0];
      await add(label, sample, { baseline: FLOOR });
    }
    if (!steadyOnly && r < kubectlReps) {
      await add(PEER_STEADY, () => peerSample(clusters, rules), { baseline: STEADY });
    }
  }

  // (e) The back direction (`--only status`): the resumed steady pass over Running Pods, the
  // status floor, and the resumed pass after 1% of the host Pods changed status.
  const hostPercent = Array.from({ length: pods ?? 0 }, (_, i) => i).filter((i) => i % 100 === 7);
  if (statusOnly) {
    // Two resumed passes record the resume point past the settling passes' status writes.
    for (let n = 0; n < 2; n += 1) await passSample(clusters, true);
    for (let r = 0; r < reps; r += 1) {
      await add(INCREMENTAL, () => passSample(clusters, true), { baseline: STATUS_FLOOR });
      await add(STATUS_FLOOR, () => statusFloorSample(clusters), { baseline: STATUS_FLOOR });
      await changeHostStatus(clusters, hostPercent, `rep${r}`);
      await add(STATUS_1, () => passSample(clusters, true), { baseline: STATUS_FLOOR });
      // The status writes come back as tenant changes: one resumed pass takes them in.
      await passSample(clusters, true);
    }
  }

  // (d) Changes. Each rep edits the same objects to new values, and deletes the same 1%, which
  // is recreated and converged (unmeasured) before the next rep.
  const all = Array.from({ length: objects }, (_, i) => i);
  const onePercent = all.filter((i) => i % 100 === 0);
  const tenPercent = all.filter((i) => i % 10 === 3);
  const deleted = all.filter((i) => i % 100 === 50);
  for (let r = 0; r < (steadyOnly ? 0 : reps); r += 1) {
    await change(clusters, onePercent, `v2-rep${r}`);
    await add(CHANGED_1, () => passSample(clusters, true), { baseline: STEADY });
    await change(clusters, tenPercent, `v2-rep${r}`);
    await add(CHANGED_10, () => passSample(clusters, true), { baseline: STEADY });
    await remove(clusters, deleted);
    await add(DELETED_1, () => passSample(clusters, true), { baseline: STEADY });
    await recreate(clusters, deleted);
    await runPass({
      tenant: BENCH_TENANT,
      tenantApi,
      hostApi,
      budget: { pageSize, concurrency },
      path: 'full',
    });
  }

  const order = [
    FIRST,
    PEER_FIRST,
    STEADY,
    WARM,
    FLOOR,
    PEER_STEADY,
    INCREMENTAL,
    CHANGED_1,
    CHANGED_10,
    DELETED_1,
    STATUS_FLOOR,
    STATUS_1,
  ];
  const summaries = order.flatMap((label) => {
    const row = rows.get(label);
    return row ? [summarize(row)] : [];
  });
  const byLabel = new Map(summaries.map((s) => [s.label, s]));
  const ratioOf = (label: string, baseline: string | undefined) => {
    const a = byLabel.get(label)?.ms;
    const b = baseline ? byLabel.get(baseline)?.ms : undefined;
    return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
  };
  const ratios = {
    kubectlFirstOverFirstPass: ratioOf(PEER_FIRST, FIRST),
    steadyOverListFloor: ratioOf(STEADY, FLOOR),
    warmSteadyOverListFloor: ratioOf(WARM, FLOOR),
    incrementalOverListFloor: ratioOf(INCREMENTAL, FLOOR),
    kubectlSteadyOverSteady: ratioOf(PEER_STEADY, STEADY),
    kubectlSteadyOverListFloor: ratioOf(PEER_STEADY, FLOOR),
    changed1OverSteady: ratioOf(CHANGED_1, STEADY),
    changed10OverSteady: ratioOf(CHANGED_10, STEADY),
    deleted1OverSteady: ratioOf(DELETED_1, STEADY),
    changed1OverListFloor: ratioOf(CHANGED_1, FLOOR),
    status1OverStatusFloor: ratioOf(STATUS_1, STATUS_FLOOR),
    incrementalOverStatusFloor: ratioOf(INCREMENTAL, STATUS_FLOOR),
  };

  const short: Record<string, string> = {
    [FIRST]: 'runPass first pass',
    [PEER_FIRST]: 'runPass first pass',
    [STEADY]: 'LIST floor',
    [WARM]: 'LIST floor',
    [FLOOR]: 'LIST floor',
    [PEER_STEADY]: 'steady pass',
    [INCREMENTAL]: statusOnly ? 'status floor' : 'LIST floor',
    [CHANGED_1]: 'steady pass',
    [CHANGED_10]: 'steady pass',
    [DELETED_1]: 'steady pass',
    [STATUS_FLOOR]: 'status floor',
    [STATUS_1]: 'status floor',
  };
  const x = (v: number | undefined) => (v === undefined ? '-' : `${v.toFixed(2)}x`);
  const lines = [
    '| measurement | time (median) | ratio | tenant reads/writes | host reads/writes | C/U/D/S or result | RSS peak, this process (MiB) | kubectl RSS peak (MiB) | maxRSS after (MiB) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const label of order) {
    const s = byLabel.get(label);
    if (!s) {
      lines.push(`| ${label} | - | - | - | - | - | - | - | - |`);
      continue;
    }
    const ratio = `${x(ratioOf(label, s.baseline))} ${short[label] ?? ''}`;
    const time = s.n > 1 ? `${fmtMs(s.ms)} (of ${s.n})` : fmtMs(s.ms);
    lines.push(
      `| ${label} | ${time} | ${ratio} | ${rw(s.tenant)} | ${rw(s.host)} | ${s.outcome} | ${s.rssPeakMiB} | ${s.kubectlRssMiB ?? '-'} | ${s.maxRssMiB} |`,
    );
  }
  console.log(
    `objects=${objects}${pods === undefined ? '' : ` pods=${pods} services=${pods / 10}`} reps=${reps} pageSize=${pageSize} concurrency=${concurrency} kubectlBatch=${kubectlBatch || 'all'}${steadyOnly ? ' only=steady' : ''} kubernetes=v${state.version} node=${process.version}`,
  );
  console.log(lines.join('\n'));
  console.log(
    `peak RSS of the bench process (maxRSS): ${fmtMiB(maxRssNow())} MiB; ratios: ${Object.entries(
      ratios,
    )
      .map(([k, v]) => `${k}=${x(v)}`)
      .join(' ')}`,
  );
  console.log(
    JSON.stringify({
      bench: 'compare',
      objects,
      ...(pods === undefined ? {} : { pods, services: pods / 10 }),
      reps,
      pageSize,
      concurrency,
      kubectlBatch,
      ...(steadyOnly ? { only: 'steady' } : {}),
      kubernetes: state.version,
      node: process.version,
      rows: summaries.map((s) => ({ ...s, ms: Math.round(s.ms) })),
      ratios: Object.fromEntries(
        Object.entries(ratios).map(([k, v]) => [k, v === undefined ? null : Number(v.toFixed(3))]),
      ),
      maxRssMiB: Math.round(maxRssNow() / MiB),
    }),
  );
  const profileFile = values['cpu-prof'];
  if (profileFile !== undefined) {
    // One file per rep: DevTools opens one profile at a time.
    for (const [i, profile] of profiles.entries()) {
      await writeFile(`${profileFile}.${i + 1}.cpuprofile`, JSON.stringify(profile));
    }
    console.error(`[compare] CPU profiles of the full steady passes: ${profileFile}.N.cpuprofile`);
  }
});
