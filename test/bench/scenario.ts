/**
 * The benchmark scenario shared by `pass.bench.ts` and `pass-memory.bench.ts`: a throw-away
 * local control plane, a TenantCluster `bench` that syncs ConfigMaps, N tenant ConfigMaps with
 * ~200-byte payloads (or larger ones) in 10 virtual namespaces, and the edits between passes. `compare.bench.ts`
 * uses it too, with its own edits.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClusterApi, type KubeClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import {
  type ControlPlaneState,
  LocalKubeconfigSource,
  startControlPlane,
  stopControlPlane,
} from '../../lib/localcluster/index.js';
import type { KindRef, KubeObject } from '../../lib/ports/index.js';

export const BENCH_TENANT = 'bench';
export const HOST_NAMESPACE = 'tenant-bench';
export const NAMESPACES = Array.from({ length: 10 }, (_, i) => `ns-${i}`);
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

export interface BenchClusters {
  state: ControlPlaneState;
  tenantApi: KubeClusterApi;
  hostApi: KubeClusterApi;
  /** Indexes of the 1% of objects that `changeOnePercent`/`deleteOnePercent` touch. */
  onePercent: number[];
  /** Bytes of each ConfigMap's payload. */
  payloadBytes: number;
}

/** The default payload of a bench ConfigMap. */
export const PAYLOAD_BYTES = 200;

export async function pool<T>(
  items: T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

export function configMap(i: number, value: string, payloadBytes = PAYLOAD_BYTES): KubeObject {
  return {
    ...CONFIGMAP,
    metadata: {
      name: `cm-${i}`,
      namespace: NAMESPACES[i % NAMESPACES.length],
      labels: { app: 'bench' },
    },
    data: { index: String(i), value, payload: 'x'.repeat(payloadBytes) },
  };
}

/** What a bench needs beyond N ConfigMaps (the Pod scenario of `pod-scenario.ts`). */
export interface BenchOptions {
  /** Start the host scheduler, controller managers and kwok (default false). */
  workloads?: boolean;
  /** The kinds the bench TenantCluster syncs (default: ConfigMaps). */
  toHost?: KindRef[];
}

/**
 * Starts a throw-away control plane, seeds `objects` tenant ConfigMaps, runs `body`, and stops
 * everything afterwards (also when `body` fails).
 */
export async function withBenchClusters(
  objects: number,
  body: (clusters: BenchClusters) => Promise<void>,
  payloadBytes = PAYLOAD_BYTES,
  options: BenchOptions = {},
): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-bench-'));
  try {
    const state = await startControlPlane({
      stateDir,
      tieToThisProcess: true,
      removeStateDirWhenOrphaned: true,
      // ConfigMap benchmarks: no scheduler, controller managers or kwok competing for the cores.
      workloads: options.workloads === true,
      log: (l) => console.error(`[local] ${l}`),
    });
    const source = new LocalKubeconfigSource(state);
    const tenantApi = createClusterApi(await source.load('tenant'));
    const hostApi = createClusterApi(await source.load('host'));
    await hostApi.create({
      apiVersion: 'tenantplane.io/v1alpha1',
      kind: 'TenantCluster',
      metadata: { name: BENCH_TENANT },
      spec: { hostNamespace: HOST_NAMESPACE, toHost: options.toHost ?? [CONFIGMAP] },
    });
    await hostApi.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: HOST_NAMESPACE },
    });
    for (const name of NAMESPACES) {
      await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    const t0 = performance.now();
    const indexes = Array.from({ length: objects }, (_, i) => i);
    // Large objects go a few at a time (32 streams of 1 MiB make the apiserver's HTTP/2 refuse).
    await pool(indexes, payloadBytes > 64 * 1024 ? 4 : 32, async (i) => {
      await tenantApi.create(configMap(i, 'v1', payloadBytes));
    });
    console.error(
      `[bench] seeded ${objects} tenant ConfigMaps in ${Math.round(performance.now() - t0)} ms`,
    );
    try {
      const onePercent = indexes.filter((i) => i % 100 === 0);
      await body({ state, tenantApi, hostApi, onePercent, payloadBytes });
    } finally {
      await Promise.all([tenantApi.close(), hostApi.close()]);
    }
  } finally {
    await stopControlPlane(stateDir);
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** Edits the data of the 1% of tenant ConfigMaps (one Update each on the next pass). */
export async function changeOnePercent({
  tenantApi,
  onePercent,
  payloadBytes,
}: BenchClusters): Promise<void> {
  await pool(onePercent, 16, async (i) => {
    const cm = configMap(i, 'v2', payloadBytes);
    const current = await tenantApi.get(CONFIGMAP, cm.metadata.namespace, cm.metadata.name);
    cm.metadata.resourceVersion = current?.metadata.resourceVersion;
    await tenantApi.update(cm);
  });
}

/** Deletes the 1% of tenant ConfigMaps (one Delete each on the next pass). */
export async function deleteOnePercent({ tenantApi, onePercent }: BenchClusters): Promise<void> {
  await pool(onePercent, 16, async (i) => {
    const { namespace, name } = configMap(i, 'v2').metadata;
    const current = await tenantApi.get(CONFIGMAP, namespace, name);
    await tenantApi.delete(CONFIGMAP, namespace, name, { uid: current?.metadata.uid ?? '' });
  });
}

/** Prints rows as an aligned table under `header`. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}
