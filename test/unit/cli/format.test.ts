import { describe, expect, it } from '@jest/globals';
import {
  countsText,
  decisionTable,
  formatTable,
  painter,
  passReport,
  progressLine,
  stripAnsi,
} from '../../../lib/cli/format.js';
import type { Decision, PassResult } from '../../../lib/ports/index.js';

function decision(
  action: Decision['action'],
  name: string,
  extra: Partial<Decision> = {},
): Decision {
  return {
    action,
    tenant: 'dev',
    kind: 'ConfigMap',
    apiVersion: 'v1',
    tenantRef: { namespace: 'default', name },
    hostRef: { namespace: 'tenant-dev', name: `${name}-x-default-x-dev` },
    reason: `because ${name}`,
    passId: 'p1',
    dryRun: false,
    ...extra,
  };
}

function result(extra: Partial<PassResult> = {}): PassResult {
  return {
    passId: 'p1',
    tenant: 'dev',
    dryRun: false,
    startedAt: '2030-01-01T00:00:00.000Z',
    finishedAt: '2030-01-01T00:00:01.200Z',
    durationMs: 1200,
    complete: true,
    counts: { Create: 1, Update: 0, Delete: 1, Skip: 0 },
    objectsSeen: { ConfigMap: 3, Secret: 1 },
    errors: [],
    requests: { tenant: { reads: 2, writes: 0 }, host: { reads: 3, writes: 1 } },
    decisions: [decision('Create', 'a'), decision('Delete', 'bb')],
    ...extra,
  };
}

describe('formatTable', () => {
  it('aligns columns with three spaces and leaves the last column unpadded', () => {
    expect(
      formatTable([
        ['A', 'BB', 'C'],
        ['aaaa', 'b', 'c c'],
      ]),
    ).toBe('A      BB   C\naaaa   b    c c');
  });

  it('measures width without color codes', () => {
    const paint = painter(true);
    const text = formatTable([
      [paint('red', 'x'), 'y'],
      ['xxx', 'y'],
    ]);
    expect(stripAnsi(text)).toBe('x     y\nxxx   y');
  });

  it('trims trailing spaces on short rows', () => {
    expect(formatTable([['a', 'b'], ['ccc']])).toBe('a     b\nccc');
  });
});

describe('painter', () => {
  it('colors only when enabled', () => {
    expect(painter(false)('red', 'x')).toBe('x');
    expect(painter(true)('red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(stripAnsi(painter(true)('bold', 'x'))).toBe('x');
  });
});

describe('decisionTable', () => {
  it('has a header and one line per decision', () => {
    const lines = decisionTable([
      decision('Create', 'a'),
      decision('Skip', 'b', { error: 'AlreadyExists' }),
    ]).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ACTION\s+KIND\s+TENANT OBJECT\s+HOST OBJECT\s+REASON$/);
    expect(lines[1]).toMatch(
      /^Create\s+ConfigMap\s+default\/a\s+tenant-dev\/a-x-default-x-dev\s+because a$/,
    );
    expect(lines[2]).toMatch(/because b \(failed: AlreadyExists\)$/);
  });
});

describe('passReport', () => {
  it('prints the table, the outcome, counts, objects seen and requests', () => {
    const text = passReport(result());
    expect(text).toMatch(/^ACTION/);
    expect(text).toContain('Pass p1 for tenant cluster "dev" complete in 1.2 s.');
    expect(text).toContain('Decisions: 1 Create, 0 Update, 1 Delete, 0 Skip');
    expect(text).toContain('tenant objects seen: 3 ConfigMap, 1 Secret');
    expect(text).toContain('Requests: tenant 2 reads / 0 writes, host 3 reads / 1 write');
    expect(text).not.toContain('\u001b[');
  });

  it('says when there is nothing to do, and why a pass is incomplete', () => {
    const text = passReport(
      result({
        decisions: [],
        complete: false,
        incompleteReason: 'the write budget of 1 write was spent',
        errors: [
          {
            kind: 'Secret',
            tenantRef: { namespace: 'a', name: 'b' },
            message: 'denied',
            reason: 'Forbidden',
          },
        ],
      }),
    );
    expect(text).toContain('No decisions');
    expect(text).toContain('incomplete: the write budget of 1 write was spent');
    expect(text).toContain('Errors (1):');
    expect(text).toContain('Secret a/b: denied (Forbidden)');
  });

  it('words a dry run as such', () => {
    expect(passReport(result({ dryRun: true }))).toContain('Plan (dry run, nothing written) p1');
  });

  it('names the path the pass took, and why it was not resumed', () => {
    expect(passReport(result())).not.toContain('Path:');
    expect(passReport(result({ path: 'resumed' }))).toContain('\nPath: resumed\n');
    const fell = passReport(
      result({
        path: 'full',
        pathReason: 'ConfigMap: the resume failed: the watch answered ERROR 410',
      }),
    );
    expect(fell).toContain(
      'Path: full (ConfigMap: the resume failed: the watch answered ERROR 410)',
    );
  });

  it('says how the pass backed off on 429, and when the server takes more', () => {
    expect(passReport(result())).not.toContain('429');
    expect(passReport(result({ throttled: { retried: 2, waitedMs: 6_000 } }))).toContain(
      '\nAnswered 429 Too Many Requests: 2 sent again after waiting 6.0 s as asked\n',
    );
    const notBefore = '2026-01-01T00:01:00.000Z';
    expect(passReport(result({ throttled: { retried: 0, waitedMs: 0, notBefore } }))).toContain(
      `0 sent again after waiting 0 ms as asked; the server takes more after ${notBefore}`,
    );
  });
});

describe('progressLine', () => {
  it('rewrites one line on a terminal and clears it at the end', () => {
    const out: string[] = [];
    const p = progressLine((t) => out.push(t), true);
    p.update({ kind: 'ConfigMap', listed: 10, written: 2 });
    p.done();
    expect(out).toEqual(['\r\u001b[2KConfigMap: 10 listed, 2 written', '\r\u001b[2K']);
  });

  it('writes nothing when disabled', () => {
    const out: string[] = [];
    const p = progressLine((t) => out.push(t), false);
    p.update({ kind: 'ConfigMap', listed: 10, written: 2 });
    p.done();
    expect(out).toEqual([]);
  });
});

describe('countsText', () => {
  const cases: Array<{
    name: string;
    counts: Partial<PassResult['counts']>;
    apart?: Parameters<typeof countsText>[1];
    expected: string;
  }> = [
    {
      name: 'only what was done',
      counts: { Create: 3, Update: 1, Delete: 0, Skip: 2 },
      expected: '3 Create, 1 Update, 0 Delete, 2 Skip',
    },
    {
      name: 'missing counts read 0',
      counts: {},
      expected: '0 Create, 0 Update, 0 Delete, 0 Skip',
    },
    {
      name: 'failed writes and already-gone deletes apart',
      counts: { Create: 1 },
      apart: { failed: { Create: 2, Delete: 1 }, alreadyGone: 1 },
      expected:
        '1 Create, 0 Update, 0 Delete, 0 Skip, 3 failed (2 Create, 1 Delete), 1 already gone',
    },
    {
      name: 'nothing failed: nothing added',
      counts: { Create: 1 },
      apart: { failed: { Create: 0, Update: 0, Delete: 0, Skip: 0 }, alreadyGone: 0 },
      expected: '1 Create, 0 Update, 0 Delete, 0 Skip',
    },
  ];
  it.each(cases)('$name', ({ counts, apart, expected }) => {
    expect(countsText(counts, apart)).toBe(expected);
  });
});
