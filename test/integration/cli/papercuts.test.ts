/**
 * The papercuts a new user hits first, each run as the operator runs it: the built `tenantplane`
 * command as a child process (and, where a cluster is involved, against the real clusters).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { BIN, NODE, REPO_ROOT } from './support.js';

/** Runs the command with its stdout's reader already gone (`... | head -1` after the first line). */
function runWithClosedStdout(
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [BIN, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stderr }));
  });
}

describe('a reader that goes away (| head -1)', () => {
  it.each([[['sync', '--help']], [['--help']], [['name', 'nginx', 'default', 'dev']]])(
    '%j exits 0 quietly: no EPIPE stack',
    async (args) => {
      const run = await runWithClosedStdout(args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    },
  );
});
