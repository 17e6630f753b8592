/**
 * The four measurements of `latency.bench.ts`, each made while the engine follows the tenant.
 * They write through driver clients of their own and watch through observers of their own
 * (`latency-watch.ts`), so the engine's clients count only the engine's requests.
 */
import type { ClusterApi, KubeObject, RequestCount } from '../../lib/ports/index.js';
import { observe, ReadyTimes, until } from './latency-watch.js';
import {
  DEPLOYMENT,
  defaultServiceAccount,
  deployment,
  rolledOut,
  timedRollout,
  withImage,
  withReplicas,
} from './latency-workload.js';
import { POD } from './pod-scenario.js';
import { CONFIGMAP, configMap, HOST_NAMESPACE, pool } from './scenario.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The bench's own clients: writes and observer watches, not counted as the engine's. */
export interface Drivers {
  tenant: ClusterApi;
  host: ClusterApi;
}

/** The engine's clients, whose request counts are the follow's. */
export interface EngineApis {
  tenantApi: ClusterApi;
  hostApi: ClusterApi;
}

function counts(apis: EngineApis): { tenant: RequestCount; host: RequestCount } {
  return { tenant: apis.tenantApi.requestCount(), host: apis.hostApi.requestCount() };
}

/** The engine's requests since `before`, per side. */
export function since(apis: EngineApis, before: ReturnType<typeof counts>) {
  const now = counts(apis);
  const d = (a: RequestCount, b: RequestCount) => ({
    reads: a.reads - b.reads,
    writes: a.writes - b.writes,
  });
  return { tenant: d(now.tenant, before.tenant), host: d(now.host, before.host) };
}

/**
 * (d) An idle follow: the engine's requests over `seconds` with nothing changing anywhere it
 * watches, and the passes it ran meanwhile (`passes()` counts every pass of the follow).
 */
export async function idleFollow(apis: EngineApis, seconds: number, passes: () => number) {
  const before = counts(apis);
  const passesBefore = passes();
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const ms = performance.now() - t0;
  return { ms, requests: since(apis, before), passes: passes() - passesBefore };
}

/**
 * (a) `changes` tenant ConfigMap edits, one every `spacingMs` (open loop: the next is not held
 * back for the last one's copy), each a PUT of a new `data.value`; its latency runs from the PUT's
 * response to the host watch delivering the copy with that value.
 */
export async function writeLatency(
  drivers: Drivers,
  objects: number,
  changes: number,
  spacingMs: number,
) {
  const indexes = Array.from({ length: changes }, (_, i) => i % objects);
  const versions = new Map<number, string | undefined>();
  await pool([...new Set(indexes)], 16, async (i) => {
    const { namespace, name } = configMap(i, '').metadata;
    const current = await drivers.tenant.get(CONFIGMAP, namespace, name);
    versions.set(i, current?.metadata.resourceVersion);
  });
  const seen = new Map<string, number>();
  const start = await drivers.host.list(CONFIGMAP, { namespace: HOST_NAMESPACE, limit: 1 });
  const observer = observe(
    drivers.host,
    CONFIGMAP,
    { namespace: HOST_NAMESPACE },
    ({ object }, atMs) => {
      const value = (object as KubeObject & { data?: { value?: string } }).data?.value;
      if (value?.startsWith('lat-') && !seen.has(value)) seen.set(value, atMs);
    },
    start.resourceVersion,
  );
  // The watch is open before the first edit, so no edit's copy arrives late for that reason.
  await sleep(1000);
  const written: number[] = [];
  const writeMs: number[] = [];
  const t0 = performance.now();
  for (const [n, i] of indexes.entries()) {
    await sleep(Math.max(0, t0 + n * spacingMs - performance.now()));
    const cm = configMap(i, `lat-${n}`);
    cm.metadata.resourceVersion = versions.get(i);
    const sent = performance.now();
    const result = await drivers.tenant.update(cm);
    written[n] = performance.now();
    writeMs.push(written[n] - sent);
    versions.set(i, result.metadata.resourceVersion);
  }
  try {
    await until(`${changes} host copies`, async () => seen.size >= changes, 60_000);
  } catch (error) {
    console.error(String(error), `(${seen.size} seen)`);
  }
  await observer.stop();
  const latencies = written.flatMap((at, n) => {
    const hostAt = seen.get(`lat-${n}`);
    return hostAt === undefined ? [] : [hostAt - at];
  });
  return { latencies, writeMs, missed: changes - latencies.length };
}

/**
 * (b) A tenant Deployment scaled from 0 to `pods` in steps of `step`, each step awaited until
 * every replica is available in the tenant; each Pod's latency runs from the host watch showing
 * its host copy Ready to the tenant watch showing the tenant Pod Ready. The Pods are left
 * running: the bench measures the way up only.
 */
export async function readyLatency(
  drivers: Drivers,
  namespace: string,
  pods: number,
  step: number,
) {
  const name = 'ready';
  await defaultServiceAccount(drivers.tenant, namespace);
  const times = new ReadyTimes();
  const host = observe(drivers.host, POD, { namespace: HOST_NAMESPACE }, times.onHost);
  const tenant = observe(
    drivers.tenant,
    POD,
    { namespace, labelSelector: `app=${name}` },
    times.onTenant,
  );
  await sleep(1000);
  await drivers.tenant.create(deployment(name, namespace, 0, 'nginx:1'));
  const steps: number[] = [];
  try {
    for (let n = Math.min(step, pods); n <= pods; n += step) {
      steps.push(await timedRollout(drivers.tenant, namespace, name, withReplicas(n)));
      console.error(
        `[latency] ${n} Pods Ready in the tenant, step ${Math.round(steps.at(-1) ?? 0)} ms`,
      );
    }
  } finally {
    await sleep(500);
    await Promise.all([host.stop(), tenant.stop()]);
  }
  return { latencies: times.latencies(), steps };
}

/**
 * (c) `rollouts` rolling updates (a new image) of the same `replicas`-replica Deployment in the
 * tenant (followed) and in a host namespace of its own (native), alternating which goes first.
 */
export async function rolloutLatency(
  drivers: Drivers,
  namespaces: { tenant: string; host: string },
  replicas: number,
  rollouts: number,
) {
  const name = 'roll';
  await drivers.host.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespaces.host },
  });
  await defaultServiceAccount(drivers.tenant, namespaces.tenant);
  await defaultServiceAccount(drivers.host, namespaces.host);
  const sides = [
    { side: 'tenant' as const, api: drivers.tenant, namespace: namespaces.tenant },
    { side: 'host' as const, api: drivers.host, namespace: namespaces.host },
  ];
  for (const { api, namespace } of sides) {
    await api.create(deployment(name, namespace, replicas, 'nginx:1'));
  }
  for (const { api, namespace } of sides) {
    await until(
      `${namespace}/${name} available`,
      async () => rolledOut(await api.get(DEPLOYMENT, namespace, name)),
      300_000,
    );
  }
  const ms = { tenant: [] as number[], host: [] as number[] };
  for (let r = 0; r < rollouts; r += 1) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const { side, api, namespace } of order) {
      const took = await timedRollout(api, namespace, name, withImage(`nginx:${r + 2}`));
      ms[side].push(took);
      console.error(`[latency] rollout ${r + 1} on the ${side}: ${Math.round(took)} ms`);
      // A breath between rollouts, so one's tail (old Pods' deletion) does not weigh on the next.
      await sleep(2000);
    }
  }
  return ms;
}
