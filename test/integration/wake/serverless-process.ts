/**
 * `npm run local:serverless` as a service manager runs it: `npm run` (its shell and the runner
 * under it) in a process group of its own, stopped by SIGTERM to that group. Gives its invocation
 * lines as they come, its stderr, and the processes left of it: the group's, and any sync
 * function process (its working directory is the plane's bundle directory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));

export interface InvocationLine {
  tenant: string;
  reason: 'wake' | 'schedule';
  cold: boolean;
  durationMs: number;
  passes: number;
  changes: number;
  error?: string;
  /** When the line was read (epoch ms). */
  at: number;
}

export interface ServerlessProcess {
  child: ChildProcess;
  pgid: number;
  lines: InvocationLine[];
  stderr: string[];
  /** Resolves once the runner is ready: endpoint up (or retrying), tenants listed. */
  ready: Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** SIGTERM to the process group; resolves with the exit and how long it took. */
  terminate(): Promise<{ code: number | null; signal: string | null; ms: number }>;
}

/** Starts `npm run local:serverless -- <args>` on the plane in `stateDir`. */
export function startServerless(stateDir: string, args: string[]): ServerlessProcess {
  const child = spawn(
    'npm',
    ['run', '--silent', 'local:serverless', '--', '--state-dir', stateDir, ...args],
    {
      cwd: REPO,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pgid = child.pid as number;
  const lines: InvocationLine[] = [];
  const stderr: string[] = [];
  let readyResolve: (entry: Record<string, unknown>) => void = () => {};
  let readyReject: (error: Error) => void = () => {};
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  const splitter = (onLine: (line: string) => void) => {
    let rest = '';
    return (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) if (part.trim() !== '') onLine(part);
    };
  };
  child.stdout?.on(
    'data',
    splitter((line) => lines.push({ ...(JSON.parse(line) as InvocationLine), at: Date.now() })),
  );
  child.stderr?.on(
    'data',
    splitter((line) => {
      stderr.push(line);
      if (line.includes('"message":"ready"')) readyResolve(JSON.parse(line));
    }),
  );
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      readyReject(new Error(`local:serverless exited (${code ?? signal}):\n${stderr.join('\n')}`));
      resolve({ code, signal });
    });
  });
  return {
    child,
    pgid,
    lines,
    stderr,
    ready,
    exited,
    async terminate() {
      const t0 = Date.now();
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        // already gone
      }
      const exit = await exited;
      return { ...exit, ms: Date.now() - t0 };
    },
  };
}

function pidsWhere(test: (pid: number) => boolean): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return test(pid);
      } catch {
        return false;
      }
    });
}

/** Processes of process group `pgid` still alive. */
export function groupProcesses(pgid: number): number[] {
  return pidsWhere((pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[2]) === pgid && fields[0] !== 'Z';
  });
}

/** Sync function processes of the plane in `stateDir` (their working directory is its bundle). */
export function functionProcesses(stateDir: string): number[] {
  const bundle = join(stateDir, 'serverless', 'bundle');
  return pidsWhere((pid) => readlinkSync(`/proc/${pid}/cwd`) === bundle);
}
