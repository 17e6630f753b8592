import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { ControlPlaneState } from '../../../lib/localcluster/index.js';
import { isAlive } from '../../../lib/localcluster/process.js';

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return check();
}

describe('a control plane tied to a process that is killed', () => {
  it('leaves no etcd or kube-apiserver running and removes its throw-away state', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'tenantplane-reaper-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/start-tied-control-plane.ts', stateDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const state = await new Promise<ControlPlaneState>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve(JSON.parse(line) as ControlPlaneState);
      });
      child.on('exit', (code) => reject(new Error(`the starter exited early (${code})`)));
    });
    const pids = [state.etcd.pid, state.clusters.tenant.pid, state.clusters.host.pid];
    expect(pids.every(isAlive)).toBe(true);

    child.kill('SIGKILL'); // no teardown hook can run
    expect(await until(() => !pids.some(isAlive), 15_000)).toBe(true);
    expect(await until(() => !existsSync(stateDir), 5_000)).toBe(true);
  });
});
