import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** A free TCP port on loopback, as the kernel hands it out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/**
 * Starts a long-running server process in its own process group, output to `logFile`, not tied
 * to this process's lifetime (so `cluster:up` can exit and leave it running). `env` replaces
 * the environment when given (kwok reads `$HOME/.kwok`).
 */
export function startDaemon(
  binary: string,
  args: string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
): ChildProcess {
  const out = openSync(logFile, 'a');
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', out, out], env });
  child.unref();
  return child;
}

/** True when `pid` is alive and is the program `binary` (guards against a recycled PID). */
export async function isOurProcess(pid: number, binary: string): Promise<boolean> {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.split('\0')[0] === binary;
  } catch {
    // No /proc (not Linux): trust the signal check.
    return true;
  }
}

/** True while a process with this PID exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops a process by PID: SIGTERM, then SIGKILL after `graceMs`. Resolves when it is gone. */
export async function stopProcess(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) {
    signal('SIGKILL');
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a detached watchdog that kills `pids` once `parentPid` is gone (and then removes
 * `removeDir`, a throw-away state directory). It covers what a teardown hook cannot: a test run
 * killed by a signal or a crash.
 */
export function startReaper(
  parentPid: number,
  pids: number[],
  removeDir?: string,
): number | undefined {
  const code = `
const [dir, parent, ...pids] = [process.argv[1], ...process.argv.slice(2).map(Number)];
const alive = (p) => { try { process.kill(p, 0); return true; } catch { return false; } };
setInterval(() => {
  if (alive(parent)) return;
  for (const p of pids) { try { process.kill(p, 'SIGKILL'); } catch {} }
  setTimeout(() => {
    if (dir) { try { require('node:fs').rmSync(dir, { recursive: true, force: true }); } catch {} }
    process.exit(0);
  }, 500);
}, 500);`;
  const args = ['-e', code, removeDir ?? '', String(parentPid), ...pids.map(String)];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid;
}
