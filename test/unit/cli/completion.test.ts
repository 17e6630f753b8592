/**
 * `tenantplane completion bash|zsh`: the scripts come from the command tree, and the bash one
 * completes as bash runs it (sourced into a real bash, COMP_WORDS set as bash sets them).
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { run } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

async function script(shell: string): Promise<string> {
  const io = captureIo();
  expect(await run(['completion', shell], io)).toBe(0);
  return io.stdout();
}

/** What bash offers for the command line `line` (the last word is the one being completed). */
function bashCompletes(bashScript: string, line: string[]): string[] {
  const words = line.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    [
      '-c',
      `${bashScript}\nCOMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}; _tenantplane; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: 'utf8', cwd: '/' },
  );
  return out.split('\n').filter((w) => w !== '');
}

describe('tenantplane completion bash', () => {
  it('completes commands, each command’s flags, -o formats and the shells', async () => {
    const bash = await script('bash');
    expect(bashCompletes(bash, ['tenantplane', ''])).toEqual(
      expect.arrayContaining(['sync', 'plan', 'explain', 'status', 'gateway', 'version', 'name']),
    );
    expect(bashCompletes(bash, ['tenantplane', 'st'])).toEqual(['status']);
    expect(bashCompletes(bash, ['tenantplane', 'sync', 'dev', '--f'])).toEqual([
      '--full',
      '--follow',
    ]);
    // plan has no --follow.
    expect(bashCompletes(bash, ['tenantplane', 'plan', 'dev', '--fo'])).toEqual([]);
    expect(bashCompletes(bash, ['tenantplane', 'status', '-o', 'y'])).toEqual(['yaml']);
    expect(bashCompletes(bash, ['tenantplane', 'completion', ''])).toEqual(
      expect.arrayContaining(['bash', 'zsh']),
    );
    expect(bashCompletes(bash, ['tenantplane', 'help', 'tr'])).toEqual(['trigger']);
    // A group completes its subcommands, and a subcommand its own flags.
    expect(bashCompletes(bash, ['tenantplane', 'secrets', ''])).toEqual(['put', '-h', '--help']);
    expect(bashCompletes(bash, ['tenantplane', 'secrets', 'put', 'dev', '--host-'])).toEqual([
      '--host-kubeconfig',
      '--host-secret-id',
    ]);
  });

  it('ends by registering the function for the command', async () => {
    expect(await script('bash')).toMatch(/\ncomplete -o default -F _tenantplane tenantplane\n$/);
  });
});

describe('tenantplane completion zsh', () => {
  it('describes every command and gives each its flags', async () => {
    const zsh = await script('zsh');
    expect(zsh.startsWith('#compdef tenantplane\n')).toBe(true);
    expect(zsh).toContain("'sync:run one pass for a tenant cluster'");
    expect(zsh).toContain("'--quiet-seconds[with --follow end after n seconds without a change]");
    expect(zsh).toContain("'--output[output format]:value:(table json yaml)'");
    expect(zsh).toContain("'--kubeconfig[");
    expect(zsh).toMatch(/'--tls-cert\[serving certificate \(PEM\)\]:file:_files'/);
    expect(zsh).toContain("'1:shell:(bash zsh)'");
  });
});

describe('bad usage', () => {
  it('refuses another shell (exit 2)', async () => {
    const io = captureIo();
    expect(await run(['completion', 'fish'], io)).toBe(2);
    expect(io.stderr()).toMatch(
      /value 'fish' is invalid for argument 'shell'. Allowed choices are bash, zsh/,
    );
  });
});
