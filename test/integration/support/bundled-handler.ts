/**
 * Runs a bundled Lambda handler the way the Node.js runtime does, in a fresh Node process: only
 * the function's environment plus what the runtime adds, the handler module imported from the
 * bundle directory (the task root), one invocation with a Lambda context. The invocation's
 * outcome comes back on a separate pipe (fd 3), so stdout and stderr hold only what the function
 * itself printed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LAMBDA_RUNNER_SCRIPT } from '../../../lib/localcluster/serverless/invoke.js';
import type { ShippedFunction } from './shipped-function.js';

export interface Invocation {
  stdout: string;
  stderr: string;
  /** `process.version` of the child. */
  node: string;
  result?: unknown;
  error?: { name: string; message: string };
  exitCode: number | null;
}

export interface InvokeOptions {
  fn: ShippedFunction;
  bundleDir: string;
  event: unknown;
  /** Instead of `event`: these events, one after another in the same process (a warm container); `result` is their results. */
  events?: unknown[];
  requestId: string;
  /** Added to the function's environment (AWS endpoint, credentials, region). */
  extraEnv: Record<string, string>;
}

/** Invokes `fn` once, from `bundleDir`, in a new Node process. */
export function invokeBundledHandler(options: InvokeOptions): Promise<Invocation> {
  const { fn, bundleDir } = options;
  const [moduleName, exportName] = fn.handler.split('.') as [string, string];
  const spec = {
    moduleUrl: pathToFileURL(join(bundleDir, `${moduleName}.mjs`)).href,
    exportName,
    event: options.event,
    events: options.events,
    requestId: options.requestId,
    functionName: fn.functionName,
    memoryMiB: fn.memoryMiB,
    timeoutSeconds: fn.timeoutSeconds,
  };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: bundleDir,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMiB),
    ...fn.environment,
    ...options.extraEnv,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', LAMBDA_RUNNER_SCRIPT, JSON.stringify(spec)],
      {
        cwd: bundleDir,
        env,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      },
    );
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const outcome: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => outcome.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), (fn.timeoutSeconds + 30) * 1000);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const text = Buffer.concat(outcome).toString('utf8');
      const reported = (text ? JSON.parse(text) : {}) as Omit<Invocation, 'stdout' | 'stderr'>;
      resolve({
        ...reported,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode,
      });
    });
  });
}
