import { describe, expect, it } from '@jest/globals';
import { CommanderError } from 'commander';
import { formatDuration, parseDuration, parseWholeNumber } from '../../../lib/cli/duration.js';
import { CommandError, exitCodeForError, messageOf, UsageError } from '../../../lib/cli/errors.js';
import { ExitCode, exitCodeForPass } from '../../../lib/cli/exit-codes.js';
import { chooseKubeconfigs, contextFor } from '../../../lib/cli/kubeconfig-choice.js';
import { budgetFromFlags, checkTenantName } from '../../../lib/cli/options.js';
import { MAX_TENANT_NAME_LENGTH, tenantNameProblem } from '../../../lib/common/index.js';
import { TenantClusterNotFoundError } from '../../../lib/engine/index.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1.5s', 1500],
    ['1h2m3s4ms', 3_723_004],
    [' 10s ', 10_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['30', '', 's', '10 s', '-5s', '5d', '1.s', '0s', '0ms', 'abc', '5sx'])(
    'rejects %j as bad usage',
    (text) => {
      expect(() => parseDuration(text)).toThrow(UsageError);
    },
  );

  it('says what a duration looks like', () => {
    expect(() => parseDuration('30')).toThrow(/e\.g\. 30s/);
  });
});

describe('parseWholeNumber', () => {
  it('parses whole numbers at or above the minimum', () => {
    expect(parseWholeNumber('0', '--max-writes', 0)).toBe(0);
    expect(parseWholeNumber('250', '--page-size', 1)).toBe(250);
  });

  it.each([
    ['0', 1],
    ['-1', 0],
    ['1.5', 0],
    ['ten', 0],
    ['', 0],
    ['99999999999999999999', 0],
  ])('rejects %j (min %d) naming the flag', (text, min) => {
    expect(() => parseWholeNumber(text, '--page-size', min)).toThrow(/--page-size/);
  });
});

describe('formatDuration', () => {
  it('reads naturally', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(2400)).toBe('2.4 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(120_000)).toBe('2 min');
  });
});

describe('exit codes', () => {
  it('are the documented numbers', () => {
    expect(ExitCode).toEqual({ Ok: 0, Failed: 1, Usage: 2, Incomplete: 3 });
  });

  it('map a pass: complete without errors 0, anything else 3', () => {
    expect(exitCodeForPass({ complete: true, errors: [] })).toBe(0);
    expect(exitCodeForPass({ complete: false, errors: [] })).toBe(3);
    expect(exitCodeForPass({ complete: true, errors: [{ kind: 'ConfigMap', message: 'x' }] })).toBe(
      3,
    );
  });

  it('map errors: usage 2, help 0, commander parse errors 2, everything else 1', () => {
    expect(exitCodeForError(new UsageError('bad'))).toBe(2);
    expect(exitCodeForError(new CommanderError(1, 'commander.unknownOption', 'x'))).toBe(2);
    expect(exitCodeForError(new CommanderError(0, 'commander.helpDisplayed', 'x'))).toBe(0);
    expect(exitCodeForError(new TenantClusterNotFoundError('dev'))).toBe(1);
    expect(exitCodeForError(new CommandError('gone'))).toBe(1);
    expect(exitCodeForError(new Error('boom'))).toBe(1);
    expect(exitCodeForError('a string')).toBe(1);
  });

  it('print one line, never a stack', () => {
    const error = new Error('first\n  second\n');
    expect(messageOf(error)).toBe('first second');
    expect(messageOf(error, true)).toBe('first\n  second');
    expect(messageOf(new Error(''))).toBe('unknown error');
  });
});

describe('chooseKubeconfigs', () => {
  it('defaults to the local control plane', () => {
    expect(chooseKubeconfigs({})).toEqual({ source: 'local' });
  });

  it('takes two files', () => {
    expect(chooseKubeconfigs({ tenantKubeconfig: 't.yaml', hostKubeconfig: 'h.yaml' })).toEqual({
      source: 'files',
      tenantPath: 't.yaml',
      hostPath: 'h.yaml',
    });
  });

  it('refuses one file without the other', () => {
    expect(() => chooseKubeconfigs({ hostKubeconfig: 'h.yaml' })).toThrow(UsageError);
    expect(() => chooseKubeconfigs({ tenantKubeconfig: 't.yaml' })).toThrow(/go together/);
  });

  it('takes two secret ids', () => {
    expect(chooseKubeconfigs({ secrets: 'tp/dev/tenant, tp/dev/host' })).toEqual({
      source: 'secrets',
      tenantSecretId: 'tp/dev/tenant',
      hostSecretId: 'tp/dev/host',
    });
  });

  it.each(['one', 'a,b,c', ',b', 'a,'])('refuses --secrets %j', (secrets) => {
    expect(() => chooseKubeconfigs({ secrets })).toThrow(UsageError);
  });

  it('refuses --secrets with files', () => {
    expect(() => chooseKubeconfigs({ secrets: 'a,b', hostKubeconfig: 'h' })).toThrow(
      /cannot be combined/,
    );
  });

  it('picks per-role contexts over --context', () => {
    const flags = { context: 'both', hostContext: 'h' };
    expect(contextFor(flags, 'tenant')).toBe('both');
    expect(contextFor(flags, 'host')).toBe('h');
    expect(contextFor({}, 'host')).toBeUndefined();
  });
});

describe('budgetFromFlags', () => {
  it('turns the deadline into an instant and passes the rest through', () => {
    expect(
      budgetFromFlags({ deadline: 30_000, maxWrites: 0, pageSize: 10, concurrency: 2 }, 1000),
    ).toEqual({ deadline: 31_000, maxWrites: 0, pageSize: 10, concurrency: 2 });
    expect(budgetFromFlags({}, 1000)).toEqual({});
  });
});

describe('checkTenantName', () => {
  it('accepts DNS labels and refuses the rest', () => {
    expect(checkTenantName('dev-1')).toBe('dev-1');
    for (const bad of ['Dev', 'a.b', '-a', 'a'.repeat(64), '', 'a_b']) {
      expect(() => checkTenantName(bad)).toThrow(UsageError);
    }
  });

  it('applies the one tenant-name rule, and says which part is broken', () => {
    const longest = 'a'.repeat(MAX_TENANT_NAME_LENGTH);
    expect(checkTenantName(longest)).toBe(longest);
    for (const bad of [`${longest}a`, 'team.dev', 'Dev']) {
      expect(() => checkTenantName(bad)).toThrow(
        `invalid tenant cluster name ${JSON.stringify(bad)}: it ${tenantNameProblem(bad)}`,
      );
    }
  });
});
