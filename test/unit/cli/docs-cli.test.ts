/**
 * docs/cli.md, "Every command and flag", lists every command the program has, and under each
 * command's heading every flag it takes: a flag added to the command without its line fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { Command } from 'commander';
import { buildProgram } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

const DOC = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

/** The `### tenantplane ...` subsections of the reference, by heading. */
function referenceSections(): Map<string, string> {
  const reference = DOC.split('\n## Every command and flag\n')[1]?.split('\n## ')[0] ?? '';
  const sections = new Map<string, string>();
  for (const part of reference.split('\n### ').slice(1)) {
    const [heading = '', ...body] = part.split('\n');
    sections.set(heading.trim(), body.join('\n'));
  }
  return sections;
}

/** Every command path (`tenantplane`, `tenantplane sync`, ...) with its long flags. */
function commands(command: Command, path = 'tenantplane'): [string, string[]][] {
  const flags = command.options.map((o) => o.long).filter((f): f is string => f !== undefined);
  return [[path, flags], ...command.commands.flatMap((c) => commands(c, `${path} ${c.name()}`))];
}

describe('docs/cli.md lists every command and flag', () => {
  const program = buildProgram(captureIo(), {}, () => undefined);
  const sections = referenceSections();

  it.each(commands(program))('%s', (path, flags) => {
    const section = sections.get(path);
    if (section === undefined) throw new Error(`docs/cli.md has no "### ${path}" section`);
    // `--flag`, `-o, --output ...`: the flag whole, not the start of a longer one.
    for (const flag of flags) expect(section).toMatch(new RegExp(`[\`\\s,]${flag}(?![-\\w])`));
    // The synopsis at the top names it too.
    if (path !== 'tenantplane') expect(DOC.split('\n## ')[0]).toContain(`${path} `);
  });
});
