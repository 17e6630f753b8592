/**
 * The fleet bench's clusters: the local control plane (one etcd, its host apiserver with the
 * managed cluster's inflight limits, its tenant apiserver) plus more tenant apiservers on the same
 * etcd, each under an etcd prefix of its own. Every process is stopped by `stop()`, and by the
 * control plane's reaper and one of ours when this process dies without it (a crash, SIGKILL).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiServerArgs } from '../../lib/localcluster/daemons.js';
import {
  type ControlPlaneState,
  startControlPlane,
  stopControlPlane,
} from '../../lib/localcluster/index.js';
import { writeKubeconfig } from '../../lib/localcluster/kubeconfig.js';
import { ensurePki } from '../../lib/localcluster/pki.js';
import {
  freePort,
  isOurProcess,
  startDaemon,
  startReaper,
  stopProcess,
} from '../../lib/localcluster/process.js';
import { type AdminTls, adminTls, get, waitUntil } from '../../lib/localcluster/readiness.js';

/** One tenant apiserver and its admin kubeconfig. */
export interface FleetApiserver {
  index: number;
  server: string;
  kubeconfig: string;
}

export interface FleetPlane {
  state: ControlPlaneState;
  /** The tenant apiservers, the control plane's own first. */
  tenantApiservers: FleetApiserver[];
  /** The admin's TLS for direct requests (`/metrics`). */
  tls: AdminTls;
  /** Pids of every process the bench started (for the memory and process figures). */
  pids: () => number[];
  stop: () => Promise<void>;
}

export interface PlaneOptions {
  tenantApiservers: number;
  hostArgs: readonly string[];
  log: (line: string) => void;
}

/** Starts the control plane and `tenantApiservers - 1` more tenant apiservers. */
export async function startFleetPlane(options: PlaneOptions): Promise<FleetPlane> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-fleet-'));
  const extra: { pid: number; binary: string }[] = [];
  let reaper: number | undefined;
  const stop = async () => {
    for (const { pid, binary } of extra)
      if (await isOurProcess(pid, binary)) await stopProcess(pid);
    await stopControlPlane(stateDir);
    if (reaper !== undefined && (await isOurProcess(reaper, process.execPath)))
      await stopProcess(reaper, 1000);
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    const state = await startControlPlane({
      stateDir,
      tieToThisProcess: true,
      removeStateDirWhenOrphaned: true,
      workloads: false,
      hostExtraArgs: options.hostArgs,
      log: options.log,
    });
    const pki = await ensurePki(join(stateDir, 'pki'));
    const tls = adminTls(pki);
    const binary = state.binaries['kube-apiserver'];
    const tenantApiservers: FleetApiserver[] = [
      {
        index: 0,
        server: state.clusters.tenant.server,
        kubeconfig: state.clusters.tenant.kubeconfig,
      },
    ];
    const booting: { index: number; pid: number; port: number; logFile: string }[] = [];
    for (let index = 1; index < options.tenantApiservers; index += 1) {
      const port = await freePort();
      const logFile = join(stateDir, 'logs', `kube-apiserver-tenant-${index}.log`);
      const args = apiServerArgs({
        ...{ stateDir, pki, name: 'tenant', index: 2 + index, port, etcdPort: state.etcd.port },
        // pflag keeps the last value: this tenant's objects under a prefix of its own.
        extraArgs: [`--etcd-prefix=/tenant-${index}`],
      });
      const child = startDaemon(binary, args, logFile);
      if (child.pid === undefined) throw new Error(`could not start ${binary}`);
      extra.push({ pid: child.pid, binary });
      booting.push({ index, pid: child.pid, port, logFile });
    }
    if (extra.length > 0)
      reaper = startReaper(
        process.pid,
        extra.map((e) => e.pid),
      );
    for (const b of booting) {
      const server = `https://127.0.0.1:${b.port}`;
      options.log(`tenant apiserver ${b.index} on ${server}`);
      await waitUntil(
        `tenant apiserver ${b.index}`,
        async () => (await get(`${server}/readyz`, tls)).status === 200,
        b.pid,
        binary,
        b.logFile,
        120_000,
      );
      const kubeconfig = join(stateDir, `tenant-${b.index}.kubeconfig`);
      await writeKubeconfig(kubeconfig, {
        clusterName: `tenantplane-fleet-tenant-${b.index}`,
        server,
        userName: 'admin',
        contextName: `tenantplane-fleet-tenant-${b.index}`,
        caCert: pki.caCert,
        clientCert: pki.adminCert,
        clientKey: pki.adminKey,
      });
      tenantApiservers.push({ index: b.index, server, kubeconfig });
    }
    const pids = () => [
      state.etcd.pid,
      state.clusters.host.pid,
      state.clusters.tenant.pid,
      ...extra.map((e) => e.pid),
    ];
    return { state, tenantApiservers, tls, pids, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The host apiserver's `/metrics` text, read as the admin (exempt from priority and fairness). */
export async function scrapeHost(plane: FleetPlane): Promise<string> {
  const res = await get(`${plane.state.clusters.host.server}/metrics`, plane.tls);
  if (res.status !== 200) throw new Error(`host /metrics answered ${res.status}`);
  return res.body;
}

/** Every tenant apiserver's `/metrics` text, the control plane's own first. */
export async function scrapeTenants(plane: FleetPlane): Promise<string[]> {
  return Promise.all(
    plane.tenantApiservers.map(async (a) => {
      const res = await get(`${a.server}/metrics`, plane.tls);
      if (res.status !== 200)
        throw new Error(`tenant apiserver ${a.index} /metrics: ${res.status}`);
      return res.body;
    }),
  );
}
