import { describe, expect, it } from '@jest/globals';
import { statusText } from '../../../lib/cli/commands/status.js';
import { CommandError, errorLine, hostReadError } from '../../../lib/cli/errors.js';
import { answer, countsText, withProgressLine } from '../../../lib/cli/format.js';
import { ClusterError } from '../../../lib/ports/index.js';

describe('countsText', () => {
  it('reads a missing count as 0', () => {
    expect(countsText({ Create: 3, Update: 1, Delete: 0, Skip: 2 })).toBe(
      '3 Create, 1 Update, 0 Delete, 2 Skip',
    );
    expect(countsText({ Delete: 4 })).toBe('0 Create, 0 Update, 4 Delete, 0 Skip');
  });
});

describe('answer', () => {
  it('is one JSON line for -o json, and the text layout otherwise', () => {
    const layout = () => 'text\n';
    expect(answer('json', { a: 1 }, layout)).toBe('{"a":1}\n');
    expect(answer('table', { a: 1 }, layout)).toBe('text\n');
  });
});

describe('withProgressLine', () => {
  it('clears the line however the work ends', async () => {
    let written = '';
    const write = (text: string) => {
      written += text;
    };
    const failing = withProgressLine(write, true, async (progress) => {
      progress.update({ kind: 'ConfigMap', listed: 2, written: 1 });
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    expect(written).toBe('\r\u001b[2KConfigMap: 2 listed, 1 written\r\u001b[2K');
    expect(await withProgressLine(write, false, async () => 42)).toBe(42);
  });
});

describe('hostReadError', () => {
  it('names an unreachable host, or what could not be read', () => {
    const unreachable = hostReadError(new ClusterError('Transport', 'ECONNREFUSED'), 'X');
    expect(unreachable).toBeInstanceOf(CommandError);
    expect(unreachable.message).toBe('the host cluster is unreachable: ECONNREFUSED');
    const forbidden = new ClusterError('Forbidden', 'no\naccess');
    const error = hostReadError(forbidden, 'TenantCluster "dev"');
    expect(error.message).toBe('could not read TenantCluster "dev": no access');
    expect(error.cause).toBe(forbidden);
  });
});

describe('errorLine', () => {
  it('is one line, except for a local control plane that failed to start', () => {
    expect(errorLine(new Error('first\nsecond'))).toBe('error: first second\n');
    const local = Object.assign(new Error('did not start\nlog tail'), {
      name: 'LocalClusterError',
    });
    expect(errorLine(local)).toBe('error: did not start\nlog tail\n');
  });
});

describe('statusText', () => {
  it('shows the counts of the last pass, a missing one as 0', () => {
    const text = statusText(
      {
        tenant: 'dev',
        spec: {},
        policy: { hostNamespace: 'tenant-dev', paused: false, toHost: [] },
        lastPass: { passId: 'p1', complete: true, counts: { create: 2 } },
        events: [],
      },
      0,
    );
    expect(text).toMatch(/Decisions:\s+2 Create, 0 Update, 0 Delete, 0 Skip/);
    expect(text).not.toMatch(/Path:/);
  });

  it('says which path the last pass took, and why a kind was not resumed', () => {
    const report = (lastPass: Record<string, unknown>) =>
      statusText(
        {
          tenant: 'dev',
          spec: {},
          policy: { hostNamespace: 'tenant-dev', paused: false, toHost: [] },
          lastPass: { passId: 'p1', complete: true, ...lastPass },
          events: [],
        },
        0,
      );
    expect(report({ path: 'resumed' })).toMatch(/Path:\s+resumed\n/);
    expect(report({ path: 'full', pathReason: 'ConfigMap: no resume point stored yet' })).toMatch(
      /Path:\s+full \(ConfigMap: no resume point stored yet\)/,
    );
  });
});
