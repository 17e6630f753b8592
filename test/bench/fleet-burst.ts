/**
 * The noisy tenant's burst, in a process of its own so its 32 writers do not slow the fleet's
 * passes in the bench process: `--writes` ConfigMaps in namespace `burst`, then `--pods` Pods in
 * namespace `pods`, of the tenant apiserver of `--kubeconfig`.
 *
 *   node --import tsx test/bench/fleet-burst.ts --child <kubeconfig> <writes> <pods>
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createClusterApi } from '../../lib/adapters/kube/cluster-client.js';
import type { KubeObject } from '../../lib/ports/index.js';
import { pool } from './scenario.js';

async function child(path: string, writes: number, pods: number): Promise<void> {
  const api = createClusterApi({ text: await readFile(path, 'utf8'), origin: path });
  await pool(
    Array.from({ length: writes }, (_, i) => i),
    32,
    async (i) => {
      await api.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `burst-${i}`, namespace: 'burst' },
        data: { i: String(i), payload: 'x'.repeat(200) },
      });
    },
  );
  const pod = (i: number): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, namespace: 'pods', labels: { app: 'noisy' } },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'app', image: 'nginx:1' }] },
  });
  await pool(
    Array.from({ length: pods }, (_, i) => i),
    32,
    async (i) => {
      await api.create(pod(i));
    },
  );
  await api.close();
}

const running = new Set<ChildProcess>();

/** Ends the bursts still running (the bench's Ctrl-C and SIGTERM). */
export function stopBursts(): void {
  for (const c of running) c.kill('SIGTERM');
}

/** Runs the burst in a child process; resolves when every write is done. */
export function runBurst(kubeconfig: string, writes: number, pods: number): Promise<void> {
  const args = ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', kubeconfig];
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...args, String(writes), String(pods)], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    running.add(c);
    c.on('error', reject);
    c.on('exit', (code) => {
      running.delete(c);
      if (code === 0) resolve();
      else reject(new Error(`the burst exited with ${code}`));
    });
  });
}

if (process.argv[2] === '--child') {
  const [path, writes, pods] = process.argv.slice(3) as [string, string, string];
  await child(path, Number(writes), Number(pods));
}
