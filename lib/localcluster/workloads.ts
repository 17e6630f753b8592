/**
 * Starts the workload components of the local control plane, all at once: on the host
 * kube-scheduler, kube-controller-manager and kwok (with its Nodes, and a StorageClass),
 * in the tenant a kube-controller-manager and the local tenant DNS (`tenant-dns.ts`). Then waits, in parallel, until each does its job:
 * every kwok node Ready (kwok) and untainted (the host's node lifecycle controller), each
 * controller manager serving and making the `default` service account (and, in the tenant,
 * publishing `kube-root-ca.crt`), the scheduler ready, CoreDNS synced with the tenant. A component that exits or does not get
 * there fails the start with its log's last lines.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BinaryPaths } from './binaries.js';
import {
  type ComponentName,
  ensureComponentCerts,
  writeComponentKubeconfig,
} from './component-kubeconfigs.js';
import { LocalClusterError } from './errors.js';
import { metricsApiObjects, metricsServerArgs } from './metrics-server.js';
import type { Pki } from './pki.js';
import { freePort, startDaemon } from './process.js';
import { type AdminTls, adminTls, get, SELF_SIGNED, send, waitUntil } from './readiness.js';
import { startTenantDns } from './tenant-dns.js';
import {
  type ComponentSpec,
  controllerManagerArgs,
  kwokArgs,
  kwokEnv,
  kwokHome,
  kwokKubeletConfig,
  schedulerArgs,
} from './workload-daemons.js';
import { hostWorkloadObjects, kwokNodeNames } from './workload-objects.js';

/** The log every simulated container shows (`kubectl logs`), in kwok's home. */
export const KWOK_LOG_FILE = 'container.log';
const KWOK_LOG_LINES = '2025-01-01T00:00:00.000000000Z stdout F kwok: the container started\n';

/** One running workload component, as `state.json` records it. */
export interface ComponentProcess {
  /** `coredns`: the local tenant DNS (`tenant-dns.ts`), whose `port` is its DNS port. */
  name: ComponentName | 'coredns';
  cluster: 'tenant' | 'host';
  pid: number;
  /** Its health port on loopback; kwok's kubelet API port. */
  port?: number;
  binary: string;
  logFile: string;
}

/** What starting the components needs of the plane whose apiservers are already ready. */
export interface WorkloadContext {
  stateDir: string;
  pki: Pki;
  binaries: BinaryPaths;
  /** The host's scheduler and controller manager, when the host runs another release. */
  hostBinaries?: BinaryPaths;
  servers: Record<'tenant' | 'host', { server: string; kubeconfig: string }>;
  log: (line: string) => void;
  timeoutMs: number;
  /** The components' certificates, when the caller started signing them early. */
  certsReady?: Promise<void>;
}

interface NodeList {
  items: {
    metadata: { name: string };
    spec?: { taints?: { key: string }[] };
    status?: { conditions?: { type: string; status: string }[] };
  }[];
}

async function hostNodes(ctx: WorkloadContext, tls: AdminTls): Promise<NodeList['items']> {
  const res = await get(`${ctx.servers.host.server}/api/v1/nodes`, tls);
  if (res.status !== 200) return [];
  const names = new Set(kwokNodeNames());
  return (JSON.parse(res.body) as NodeList).items.filter((n) => names.has(n.metadata.name));
}

const isReady = (n: NodeList['items'][number]) =>
  n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * Creates the host's Nodes and StorageClass; ones that already exist are left as they are, but
 * for the annotations of a Node (a plane made before the metrics path annotation gains it).
 */
async function createHostObjects(ctx: WorkloadContext, tls: AdminTls): Promise<void> {
  for (const { path, object } of hostWorkloadObjects()) {
    let res = await send('POST', `${ctx.servers.host.server}${path}`, tls, object);
    const { name, annotations } = object.metadata as { name: string; annotations?: object };
    if (res.status === 409 && object.kind === 'Node') {
      const patch = { metadata: { annotations } };
      res = await send('PATCH', `${ctx.servers.host.server}${path}/${name}`, tls, patch);
    }
    if (res.status !== 201 && res.status !== 200 && res.status !== 409) {
      throw new LocalClusterError(`creating ${path} on the host: ${res.status} ${res.body}`);
    }
  }
}

/**
 * Registers the host's metrics-server as `v1beta1.metrics.k8s.io` (its port is new on every start,
 * so an APIService of an earlier start is replaced).
 */
async function registerHostMetrics(ctx: WorkloadContext, tls: AdminTls, port: number) {
  const target = { namespace: 'kube-system', name: 'metrics-server', address: '127.0.0.1', port };
  for (const { path, object } of metricsApiObjects({ ...target, versions: ['v1beta1'] })) {
    const name = (object.metadata as { name: string }).name;
    await send('DELETE', `${ctx.servers.host.server}${path}/${name}`, tls);
    const res = await send('POST', `${ctx.servers.host.server}${path}`, tls, object);
    if (res.status !== 201) {
      throw new LocalClusterError(
        `registering metrics-server on the host: ${res.status} ${res.body}`,
      );
    }
  }
}

async function start(
  ctx: WorkloadContext,
  name: ComponentName,
  cluster: 'tenant' | 'host',
  started: number[],
): Promise<ComponentProcess> {
  const kubeconfig = await writeComponentKubeconfig(
    ctx.stateDir,
    ctx.pki,
    cluster,
    ctx.servers[cluster].server,
    name,
  );
  const logFile = join(ctx.stateDir, 'logs', `${name}-${cluster}.log`);
  const binary = (cluster === 'host' && ctx.hostBinaries ? ctx.hostBinaries : ctx.binaries)[name];
  let child: ReturnType<typeof startDaemon>;
  let port: number | undefined;
  if (name === 'kwok') {
    const home = kwokHome(ctx.stateDir);
    await mkdir(home, { recursive: true });
    port = await freePort();
    const config = join(home, 'kubelet.yaml');
    await writeFile(join(home, KWOK_LOG_FILE), KWOK_LOG_LINES, { flag: 'a' });
    await writeFile(config, kwokKubeletConfig(join(home, KWOK_LOG_FILE), home));
    const kubelet = { port, cert: ctx.pki.servingCert, key: ctx.pki.servingKey, config };
    child = startDaemon(binary, kwokArgs(kubeconfig, kubelet), logFile, kwokEnv(ctx.stateDir));
  } else if (name === 'metrics-server') {
    port = await freePort();
    child = startDaemon(binary, metricsServerArgs(kubeconfig, port, ctx.pki), logFile);
  } else {
    port = await freePort();
    const spec: ComponentSpec = { pki: ctx.pki, kubeconfig, cluster, port };
    const args = name === 'kube-scheduler' ? schedulerArgs(spec) : controllerManagerArgs(spec);
    child = startDaemon(binary, args, logFile);
  }
  if (child.pid === undefined) throw new LocalClusterError(`could not start ${binary}`);
  started.push(child.pid);
  ctx.log(`started ${name} for the ${cluster} cluster${port ? ` (health port ${port})` : ''}`);
  return { name, cluster, pid: child.pid, port, binary, logFile };
}

/** Waits until `c` does its job (see the module comment); throws with its log tail if not. */
async function waitForComponent(
  ctx: WorkloadContext,
  c: ComponentProcess,
  tls: AdminTls,
): Promise<void> {
  const what = `${c.name} of the ${c.cluster} cluster`;
  const wait = (label: string, probe: () => Promise<boolean>) =>
    waitUntil(`${what} (${label})`, probe, c.pid, c.binary, c.logFile, ctx.timeoutMs);
  const healthy = async (path: string) =>
    (await get(`https://127.0.0.1:${c.port}${path}`, SELF_SIGNED)).status === 200;
  if (c.name === 'kwok') {
    await wait('every simulated node Ready', async () => {
      const nodes = await hostNodes(ctx, tls);
      return nodes.length === kwokNodeNames().length && nodes.every(isReady);
    });
    // kwok writes its port into a node's status only while the node is not Ready yet: a node of
    // an earlier start still names that start's port, where metrics-server (and the host
    // apiserver, for logs) would find nothing.
    const status = { status: { daemonEndpoints: { kubeletEndpoint: { Port: c.port } } } };
    for (const name of kwokNodeNames()) {
      await send('PATCH', `${ctx.servers.host.server}/api/v1/nodes/${name}/status`, tls, status);
    }
  } else if (c.name === 'kube-scheduler') {
    await wait('/readyz', () => healthy('/readyz'));
  } else if (c.name === 'metrics-server') {
    await wait('/livez', () => healthy('/livez'));
    await registerHostMetrics(ctx, tls, c.port ?? 0);
    await wait('metrics.k8s.io served by the host apiserver', async () => {
      const res = await get(`${ctx.servers.host.server}/apis/metrics.k8s.io/v1beta1`, tls);
      return res.status === 200;
    });
  } else {
    await wait('/healthz', () => healthy('/healthz'));
    const exists = async (path: string) =>
      (await get(`${ctx.servers[c.cluster].server}${path}`, tls)).status === 200;
    await wait('the default service account made', () =>
      exists('/api/v1/namespaces/default/serviceaccounts/default'),
    );
    if (c.cluster === 'tenant') {
      await wait('kube-root-ca.crt published', () =>
        exists('/api/v1/namespaces/default/configmaps/kube-root-ca.crt'),
      );
    } else {
      // The node lifecycle controller lifts the not-ready taint once kwok reports a node Ready.
      await wait('simulated nodes untainted', async () => {
        const nodes = await hostNodes(ctx, tls);
        return nodes.length > 0 && nodes.every((n) => isReady(n) && !n.spec?.taints?.length);
      });
    }
  }
}

/**
 * Starts the workload components (see the module comment) and resolves once all are ready.
 * Every PID is pushed to `started` as soon as it exists, so the caller can stop them on failure.
 */
export async function startWorkloads(
  ctx: WorkloadContext,
  started: number[],
): Promise<ComponentProcess[]> {
  await (ctx.certsReady ?? ensureComponentCerts(ctx.stateDir, ctx.pki));
  const tls = adminTls(ctx.pki);
  // Created while the components boot; settled to a value so a failure is never unhandled.
  const created = createHostObjects(ctx, tls).then(
    () => undefined,
    (error: unknown) => error,
  );
  const components = await Promise.all([
    start(ctx, 'kube-controller-manager', 'host', started),
    start(ctx, 'kube-scheduler', 'host', started),
    start(ctx, 'kwok', 'host', started),
    start(ctx, 'kube-controller-manager', 'tenant', started),
    start(ctx, 'metrics-server', 'host', started),
  ]);
  // Starts and waits on its own; settled to a value so a failure is never unhandled.
  const dns = startTenantDns(ctx, started).then(
    (process) => ({ process }),
    (error: unknown) => ({ error }),
  );
  const createError = await created;
  if (createError !== undefined) throw createError;
  const t0 = Date.now();
  await Promise.all(
    components.map(async (c) => {
      await waitForComponent(ctx, c, tls);
      ctx.log(`${c.name} of the ${c.cluster} cluster ready after ${Date.now() - t0} ms`);
    }),
  );
  const dnsResult = await dns;
  if ('error' in dnsResult) throw dnsResult.error;
  ctx.log(`coredns of the tenant cluster ready after ${Date.now() - t0} ms`);
  return [...components, dnsResult.process];
}
