/**
 * SIGKILL and restart a real daemon (etcd or one kube-apiserver) of a local control plane, with
 * the exact command line it was started with (`lib/localcluster/daemons.ts`), on the same port
 * and data. The new process is recorded in the plane's `state.json` (so stopping the plane stops
 * it) and tied to this process by a reaper (so a killed test run leaves nothing behind).
 *
 * Restart tests use a dedicated small control plane ({@link startDedicatedPlane}), never the
 * run's shared one, so a restart can never disturb another test file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ControlPlaneState,
  LOCAL_CLUSTERS,
  type LocalClusterName,
  startControlPlane,
  stopControlPlane,
} from '../../../lib/localcluster/control-plane.js';
import { apiServerArgs, etcdArgs } from '../../../lib/localcluster/daemons.js';
import { ensurePki } from '../../../lib/localcluster/pki.js';
import { isAlive, startDaemon, startReaper } from '../../../lib/localcluster/process.js';
import { adminTls, get, waitUntil } from '../../../lib/localcluster/readiness.js';

export type Daemon = 'etcd' | LocalClusterName;

/** A control plane of its own, for tests that kill its daemons. */
export interface DedicatedPlane {
  state: ControlPlaneState;
  stop(): Promise<void>;
}

export async function startDedicatedPlane(
  options: { tenantServiceRange?: string } = {},
): Promise<DedicatedPlane> {
  const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-faults-'));
  const state = await startControlPlane({
    stateDir,
    tieToThisProcess: true,
    removeStateDirWhenOrphaned: true,
    // Restart tests are about etcd and the apiservers: no scheduler, controller managers or kwok
    // to start, to load the two cores, or to reconnect after every restart.
    workloads: false,
    ...options,
  });
  return {
    state,
    async stop() {
      await stopControlPlane(stateDir);
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

function pidOf(state: ControlPlaneState, daemon: Daemon): number {
  return daemon === 'etcd' ? state.etcd.pid : state.clusters[daemon].pid;
}

/** SIGKILLs the daemon (no graceful shutdown) and waits until it is gone. */
export async function killDaemon(state: ControlPlaneState, daemon: Daemon): Promise<void> {
  const pid = pidOf(state, daemon);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 20));
}

/** Whether every apiserver of the plane answers /readyz (which needs etcd). */
export async function planeReady(state: ControlPlaneState): Promise<boolean> {
  const tls = adminTls(await ensurePki(join(state.stateDir, 'pki')));
  for (const name of LOCAL_CLUSTERS) {
    try {
      if ((await get(`${state.clusters[name].server}/readyz`, tls)).status !== 200) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Starts the daemon again with its original command line and waits until the whole plane is
 * ready again. Updates `state` (and `state.json`) with the new PID.
 */
export async function restartDaemon(state: ControlPlaneState, daemon: Daemon): Promise<void> {
  const { stateDir, binaries } = state;
  const pki = await ensurePki(join(stateDir, 'pki'));
  const logFile = join(
    stateDir,
    'logs',
    daemon === 'etcd' ? 'etcd.log' : `kube-apiserver-${daemon}.log`,
  );
  const binary = daemon === 'etcd' ? binaries.etcd : binaries['kube-apiserver'];
  const args =
    daemon === 'etcd'
      ? etcdArgs(stateDir, state.etcd.port, state.etcd.peerPort)
      : apiServerArgs({
          stateDir,
          pki,
          name: daemon,
          index: LOCAL_CLUSTERS.indexOf(daemon),
          port: state.clusters[daemon].port,
          etcdPort: state.etcd.port,
        });
  const child = startDaemon(binary, args, logFile);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${binary}`);
  if (daemon === 'etcd') state.etcd.pid = pid;
  else state.clusters[daemon].pid = pid;
  startReaper(process.pid, [pid]);
  await writeFile(join(stateDir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  await waitUntil(
    `${daemon} after its restart`,
    () => planeReady(state),
    pid,
    binary,
    logFile,
    60_000,
  );
}
