/**
 * One write helper: every budgeted write of the engine takes its writes from the budget in
 * `lib/engine/bounds/budgeted-write.ts` (reserve, attempt, decide, written once). No other module
 * of the engine reserves a write, calls the budget's `reserveWrite` or hands it around; only the
 * bounds module that defines it and the helper name it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const HELPER = 'lib/engine/bounds/budgeted-write.ts';
const BOUNDS = 'lib/engine/bounds/budget.ts';

/** A file's code without its comments, so a comment that names the budget is no write. */
function code(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function engineFiles(): string[] {
  return readdirSync(join(ROOT, 'lib/engine'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('one write helper', () => {
  it('reserves writes only in the helper (and the bounds module that defines the budget)', () => {
    const outside = engineFiles()
      .filter((file) => file !== HELPER && file !== BOUNDS)
      .filter((file) => /\breserveWrite\b/.test(code(file)));
    expect(outside).toEqual([]);
  });

  it('the helper is the one that reserves', () => {
    expect(code(HELPER)).toMatch(/\.reserveWrite\(/);
    expect(code(BOUNDS)).toMatch(/\breserveWrite\(count = 1\): boolean/);
  });
});
