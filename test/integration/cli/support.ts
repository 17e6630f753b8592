/** Runs the real `tenantplane` command as a child process, as an operator would. */
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const NODE = resolve(REPO_ROOT, 'node_modules/.bin/node');
export const BIN = resolve(REPO_ROOT, 'bin/tenantplane.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command args...` in the repo and resolves with its exit status and output (never rejects on a non-zero exit). */
export function runProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 180_000,
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      command,
      [...args],
      { cwd: REPO_ROOT, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(
            new Error(`${command} ${args.join(' ')} did not run: ${error.message}\n${stderr}`),
          );
          return;
        }
        resolvePromise({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** `node bin/tenantplane.js args...` */
export function tenantplane(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CliRun> {
  return runProcess(NODE, [BIN, ...args], env);
}

/** Fails with the command's output when it did not exit with `code`. */
export function expectExit(run: CliRun, code: number): void {
  if (run.code !== code) {
    throw new Error(
      `expected exit ${code}, got ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`,
    );
  }
}
