/**
 * One invocation of a bundled Lambda handler the way the Node.js runtime makes it on a cold start:
 * a fresh Node process with only the function's environment plus what the runtime adds, the
 * handler module imported from the bundle directory (the task root), the event, and a context
 * whose `getRemainingTimeInMillis` counts down to the function's timeout, which is enforced (the
 * process is killed past it, as Lambda ends a timed-out invocation). The outcome comes back on a
 * pipe of its own (fd 3); what the function prints goes to `log`.
 *
 * The process runs in a process group of its own, so a signal meant for the runner (a service
 * manager's SIGTERM to its group) does not cut an invocation short behind the runner's back: the
 * runner decides (`stop`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The script a fresh Node process runs for an invocation (argv[1]: the spec as JSON). With
 * `spec.events` it invokes once per event in order in the same process, as a warm container would,
 * and reports their results. The outcome, with the child's `process.version`, goes to fd 3. Shared
 * with the tests of the shipped bundles, so both run a handler the same way.
 */
export const LAMBDA_RUNNER_SCRIPT = `
import { writeSync } from 'node:fs';
const spec = JSON.parse(process.argv[1]);
const started = Date.now();
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: spec.functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:' + process.env.AWS_REGION + ':123456789012:function:' + spec.functionName,
  memoryLimitInMB: String(spec.memoryMiB),
  awsRequestId: spec.requestId,
  logGroupName: '/tenantplane/sync/' + spec.functionName,
  logStreamName: 'local',
  getRemainingTimeInMillis: () => Math.max(0, started + spec.timeoutSeconds * 1000 - Date.now()),
  done() {}, fail() {}, succeed() {},
};
const report = (outcome) => writeSync(3, JSON.stringify({ node: process.version, ...outcome }));
try {
  const handler = (await import(spec.moduleUrl))[spec.exportName];
  if (spec.events) {
    const results = [];
    for (const event of spec.events) results.push(await handler(event, context));
    report({ result: results });
  } else report({ result: await handler(spec.event, context) });
} catch (error) {
  report({ error: { name: String(error?.name), message: String(error?.message) } });
}
// Like the runtime, the invocation ends when the handler's promise settles, not when keep-alive
// sockets close.
process.exit(0);
`;

/** A function as Lambda runs it: where its code is, its handler, environment and limits. */
export interface LocalFunction {
  functionName: string;
  bundleDir: string;
  /** `index.handler`: module `index.mjs` of the bundle, export `handler`. */
  handler: string;
  environment: Record<string, string>;
  memoryMiB: number;
  timeoutSeconds: number;
}

/** What an invocation ended with. */
export interface InvocationOutcome {
  result?: unknown;
  error?: { name: string; message: string };
  /** Set when the process ended without reporting (killed, crashed, timed out). */
  exit?: { code: number | null; signal: string | null; timedOut: boolean };
}

/** A running invocation. */
export interface RunningInvocation {
  pid: number | undefined;
  done: Promise<InvocationOutcome>;
  /** Ends it: SIGTERM to its process group, SIGKILL after `graceMs`. Resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts one invocation of `fn` with `event` in a new Node process. */
export function invokeFunction(
  fn: LocalFunction,
  event: unknown,
  requestId: string,
  log: (chunk: Buffer) => void,
): RunningInvocation {
  const [moduleName, exportName] = fn.handler.split('.') as [string, string];
  const spec = {
    moduleUrl: pathToFileURL(join(fn.bundleDir, `${moduleName}.mjs`)).href,
    ...{ exportName, event, requestId, functionName: fn.functionName },
    ...{ memoryMiB: fn.memoryMiB, timeoutSeconds: fn.timeoutSeconds },
  };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: fn.bundleDir,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: fn.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMiB),
    ...fn.environment,
  };
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${Math.floor(fn.memoryMiB * 0.9)}`,
      '--input-type=module',
      '-e',
      LAMBDA_RUNNER_SCRIPT,
      JSON.stringify(spec),
    ],
    { cwd: fn.bundleDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', log);
  child.stderr?.on('data', log);
  const outcome: Buffer[] = [];
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => outcome.push(c));
  let timedOut = false;
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    signalGroup('SIGKILL');
  }, fn.timeoutSeconds * 1000);
  const done = new Promise<InvocationOutcome>((resolve) => {
    child.on('error', (error) => resolve({ error: { name: error.name, message: error.message } }));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = Buffer.concat(outcome).toString('utf8');
      let reported: InvocationOutcome = {};
      try {
        reported = text ? (JSON.parse(text) as InvocationOutcome) : {};
      } catch {
        reported = {};
      }
      if (reported.result === undefined && reported.error === undefined)
        reported.exit = { code, signal, timedOut };
      resolve(reported);
    });
  });
  return {
    pid: child.pid,
    done,
    async stop(graceMs = 2_000) {
      signalGroup('SIGTERM');
      const killer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await done;
      clearTimeout(killer);
    },
  };
}
