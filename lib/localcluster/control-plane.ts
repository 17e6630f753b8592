import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureComponentCerts } from './component-kubeconfigs.js';
import { apiServerArgs, etcdArgs } from './daemons.js';
import { LocalClusterError } from './errors.js';
import { GATEWAY_API_VERSION, installPlaneCrds } from './gateway-api.js';
import { binariesOf, ensurePlaneBinaries, hostKubernetesVersion } from './host-version.js';
import { writeKubeconfig } from './kubeconfig.js';
import { ensureKubeletPki } from './kubelet-pki.js';
import { ensureFrontProxyCert } from './metrics-server.js';
import { ensurePki } from './pki.js';
import {
  type ControlPlaneState,
  LOCAL_CLUSTERS,
  type LocalApiServer,
  type LocalClusterName,
} from './plane-state.js';
import { freePort, isOurProcess, startDaemon, startReaper, stopProcess } from './process.js';
import { adminTls, get, waitUntil } from './readiness.js';
import { runCommand } from './run.js';
import { dnsAddress } from './tenant-dns.js';
import { prepareWake, writeSyncKubeconfig } from './wake.js';
import { startWorkloads } from './workloads.js';

export {
  type ControlPlaneState,
  LOCAL_CLUSTERS,
  type LocalApiServer,
  type LocalClusterName,
} from './plane-state.js';

export interface StartOptions {
  /** Directory for PKI, etcd data, logs, kubeconfigs and state. */
  stateDir: string;
  log?: (line: string) => void;
  /** Kill the processes when this process dies (tests); off for `cluster:up`. */
  tieToThisProcess?: boolean;
  /** With `tieToThisProcess`: also remove the (throw-away) state directory then. */
  removeStateDirWhenOrphaned?: boolean;
  /** Milliseconds to wait for readiness. */
  readyTimeoutMs?: number;
  /**
   * Also run the workload components (default true): without them Pods are never scheduled,
   * Deployments make no ReplicaSets and namespaces never finish deleting.
   */
  workloads?: boolean;
  /** The tenant apiserver's service range, when a test wants it not to be the host's. */
  tenantServiceRange?: string;
  /** More flags for the host apiserver (the fleet bench's managed-cluster inflight limits). */
  hostExtraArgs?: readonly string[];
}

const stateFile = (stateDir: string) => join(stateDir, 'state.json');

/**
 * Reads the state of a control plane started earlier and checks its processes still run and
 * answer. Returns undefined when there is none or it is no longer healthy.
 */
export async function readRunningControlPlane(
  stateDir: string,
): Promise<ControlPlaneState | undefined> {
  let state: ControlPlaneState;
  try {
    state = JSON.parse(await readFile(stateFile(stateDir), 'utf8')) as ControlPlaneState;
  } catch {
    return undefined;
  }
  // Restart a plane from older code (no components, no tenant DNS, no host metrics-server),
  // of another release, without this release of the Gateway API CRDs or the wake endpoint.
  if (!Array.isArray(state.components) || state.version !== hostKubernetesVersion())
    return undefined;
  const stale =
    !state.clusters.tenant.dns || !state.components.some((c) => c.name === 'metrics-server');
  if (state.components.length > 0 && stale) return undefined;
  if (state.gatewayApi !== GATEWAY_API_VERSION || !state.wake) return undefined;
  const checks = [
    isOurProcess(state.etcd.pid, binariesOf(state, 'host').etcd),
    ...state.components.map((c) => isOurProcess(c.pid, c.binary)),
    ...LOCAL_CLUSTERS.map((c) =>
      isOurProcess(state.clusters[c].pid, binariesOf(state, c)['kube-apiserver']),
    ),
  ];
  if (!(await Promise.all(checks)).every(Boolean)) return undefined;
  const tls = adminTls(await ensurePki(join(stateDir, 'pki')));
  try {
    for (const c of LOCAL_CLUSTERS) {
      const res = await get(`${state.clusters[c].server}/readyz`, tls);
      if (res.status !== 200) return undefined;
    }
  } catch {
    return undefined;
  }
  return state;
}

/**
 * Stops every process a control plane in `stateDir` started, by PID (verified against the
 * binary so a recycled PID is never signalled). Returns whether anything was running.
 */
export async function stopControlPlane(stateDir: string): Promise<boolean> {
  let state: ControlPlaneState;
  try {
    state = JSON.parse(await readFile(stateFile(stateDir), 'utf8')) as ControlPlaneState;
  } catch {
    return false;
  }
  // Stops each of `pids` that still runs `binary`, all at once; true if any was running.
  const stopAll = async (pids: { pid: number; binary: string }[]) =>
    (
      await Promise.all(
        pids.map(async ({ pid, binary }) => {
          if (!(await isOurProcess(pid, binary))) return false;
          await stopProcess(pid);
          return true;
        }),
      )
    ).some(Boolean);
  // Components first so they do not spin on vanished apiservers, then the apiservers before
  // etcd so they do not spin on a vanished etcd.
  let stopped = await stopAll(state.components ?? []);
  const apiservers = LOCAL_CLUSTERS.map((c) => ({
    pid: state.clusters[c].pid,
    binary: binariesOf(state, c)['kube-apiserver'],
  }));
  if (await stopAll(apiservers)) stopped = true;
  if (await isOurProcess(state.etcd.pid, binariesOf(state, 'host').etcd)) {
    await stopProcess(state.etcd.pid);
    stopped = true;
  }
  if (state.reaperPid !== undefined && (await isOurProcess(state.reaperPid, process.execPath))) {
    await stopProcess(state.reaperPid, 1000);
  }
  await rm(stateFile(stateDir), { force: true });
  return stopped;
}

/**
 * Starts one etcd and two kube-apiservers (`tenant`, `host`, sibling etcd prefixes) on free
 * loopback ports, waits until both are ready, installs the TenantCluster CRD on the host and the
 * Gateway API CRDs (`gateway-api.ts`) on both, and
 * (unless `workloads: false`) starts and waits for the workload components of `workloads.ts`.
 * Stops a stale control plane of the same state directory first.
 */
export async function startControlPlane(options: StartOptions): Promise<ControlPlaneState> {
  const { stateDir } = options;
  const log = options.log ?? (() => {});
  const timeout = options.readyTimeoutMs ?? 120_000;
  await stopControlPlane(stateDir);
  // The host may run another release (docs/versions.md); etcd is the host's, as a host's is.
  const { hostVersion, ...both } = await ensurePlaneBinaries(log);
  const { binaries } = both;
  const etcdBinary = binariesOf(both, 'host').etcd;
  await mkdir(join(stateDir, 'logs'), { recursive: true });
  const pki = await ensurePki(join(stateDir, 'pki'));
  await ensureKubeletPki(join(stateDir, 'pki'), pki);
  await ensureFrontProxyCert(join(stateDir, 'pki'), pki);
  // Signed while etcd and the apiservers boot (openssl takes seconds); awaited by the workloads.
  const certsReady = options.workloads === false ? undefined : ensureComponentCerts(stateDir, pki);
  certsReady?.catch(() => {});

  const started: number[] = [];
  try {
    const etcdPort = await freePort();
    const peerPort = await freePort();
    const etcdLog = join(stateDir, 'logs', 'etcd.log');
    log(`starting etcd on 127.0.0.1:${etcdPort}`);
    const etcd = startDaemon(etcdBinary, etcdArgs(stateDir, etcdPort, peerPort), etcdLog);
    if (etcd.pid === undefined) throw new LocalClusterError(`could not start ${etcdBinary}`);
    started.push(etcd.pid);
    await waitUntil(
      'etcd',
      async () => (await get(`http://127.0.0.1:${etcdPort}/health`)).status === 200,
      etcd.pid,
      etcdBinary,
      etcdLog,
      timeout,
    );

    // The wake endpoint's address is fixed here, before the tenant apiserver that posts to it.
    const { wake, apiserverArgs: auditArgs } = await prepareWake(stateDir, pki, await freePort());
    const clusters = {} as Record<LocalClusterName, LocalApiServer>;
    const servers: { name: LocalClusterName; pid: number; port: number; logFile: string }[] = [];
    for (const [i, name] of LOCAL_CLUSTERS.entries()) {
      const port = await freePort();
      const logFile = join(stateDir, 'logs', `kube-apiserver-${name}.log`);
      const apiserver = binariesOf(both, name)['kube-apiserver'];
      log(`starting kube-apiserver '${name}' on https://127.0.0.1:${port}`);
      const child = startDaemon(
        apiserver,
        apiServerArgs({
          ...{ stateDir, pki, name, index: i, port, etcdPort },
          ...(name === 'tenant' && options.tenantServiceRange
            ? { serviceRange: options.tenantServiceRange }
            : {}),
          extraArgs: name === 'tenant' ? auditArgs : (options.hostExtraArgs ?? []),
        }),
        logFile,
      );
      if (child.pid === undefined) throw new LocalClusterError(`could not start ${apiserver}`);
      started.push(child.pid);
      servers.push({ name, pid: child.pid, port, logFile });
    }
    // Both apiservers boot in parallel; wait for each.
    const tls = adminTls(pki);
    for (const s of servers) {
      const server = `https://127.0.0.1:${s.port}`;
      await waitUntil(
        `kube-apiserver '${s.name}'`,
        async () => (await get(`${server}/readyz`, tls)).status === 200,
        s.pid,
        binariesOf(both, s.name)['kube-apiserver'],
        s.logFile,
        timeout,
      );
      const kubeconfig = join(stateDir, `${s.name}.kubeconfig`);
      const clusterName = `tenantplane-local-${s.name}`;
      await writeKubeconfig(kubeconfig, {
        clusterName,
        server,
        userName: `${clusterName}-admin`,
        contextName: clusterName,
        caCert: pki.caCert,
        clientCert: pki.adminCert,
        clientKey: pki.adminKey,
      });
      clusters[s.name] = { pid: s.pid, port: s.port, server, kubeconfig };
    }
    await writeSyncKubeconfig(stateDir, pki, clusters.tenant.server);

    log('installing the TenantCluster CRD on the host, the Gateway API CRDs on both');
    const crd = installPlaneCrds(
      (cluster) =>
        (...args) =>
          runCommand(binaries.kubectl, ['--kubeconfig', clusters[cluster].kubeconfig, ...args]),
      log,
    );
    // The components boot while the CRD is installed; allSettled so neither failure is unhandled.
    const [crdResult, workloadResult] = await Promise.allSettled([
      crd,
      options.workloads === false
        ? Promise.resolve([])
        : startWorkloads(
            { stateDir, pki, ...both, servers: clusters, log, timeoutMs: timeout, certsReady },
            started,
          ),
    ]);
    if (crdResult.status === 'rejected') throw crdResult.reason;
    if (workloadResult.status === 'rejected') throw workloadResult.reason;
    const components = workloadResult.value;
    const dns = components.find((c) => c.name === 'coredns');
    if (dns?.port !== undefined) clusters.tenant.dns = dnsAddress(dns.port);

    const state: ControlPlaneState = {
      version: hostVersion,
      stateDir,
      ...both,
      etcd: { pid: etcd.pid, port: etcdPort, peerPort },
      clusters,
      components,
      wake,
      startedAt: new Date().toISOString(),
      gatewayApi: GATEWAY_API_VERSION,
    };
    if (options.tieToThisProcess) {
      const orphanDir = options.removeStateDirWhenOrphaned ? stateDir : undefined;
      state.reaperPid = startReaper(process.pid, started, orphanDir);
    }
    await writeFile(stateFile(stateDir), `${JSON.stringify(state, null, 2)}\n`);
    return state;
  } catch (error) {
    for (const pid of started.reverse()) await stopProcess(pid, 2000);
    throw error;
  }
}

/**
 * Returns the running control plane of `stateDir`, starting it (and building the binaries the
 * first time) when it is not running. etcd data survives restarts, so objects persist.
 */
export async function ensureControlPlane(options: StartOptions): Promise<ControlPlaneState> {
  const running = await readRunningControlPlane(options.stateDir);
  if (running) return running;
  return startControlPlane(options);
}
