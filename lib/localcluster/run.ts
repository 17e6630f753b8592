import { spawn } from 'node:child_process';
import { LocalClusterError } from './errors.js';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each line of output (stdout and stderr), for visible progress. */
  onLine?: (line: string) => void;
}

/** Runs a command to completion; rejects with its last output lines when it fails. */
export function runCommand(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    let stdout = '';
    const onData = (isStdout: boolean) => (chunk: Buffer) => {
      const text = chunk.toString();
      if (isStdout) stdout += text;
      for (const line of text.split('\n')) {
        if (!line) continue;
        tail.push(line);
        if (tail.length > 30) tail.shift();
        options.onLine?.(line);
      }
    };
    child.stdout.on('data', onData(true));
    child.stderr.on('data', onData(false));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new LocalClusterError(
            `${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`}):\n${tail.join('\n')}`,
          ),
        );
    });
  });
}
