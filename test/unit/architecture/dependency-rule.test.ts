/**
 * The dependency rule: the engine is pure and imports only `lib/ports` and `lib/common` (plus
 * node builtins); ports and common import nothing else of the product; no file under lib/,
 * functions/ or infra/ grows past 300 lines, and the pass stays a short story.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every module specifier a file imports or re-exports. */
function specifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].map(
    (m) => m[1] as string,
  );
}

/** The product folder (`lib/ports`, `lib/engine`...) a relative import lands in, or the package. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec.startsWith('node:') ? 'node:' : spec;
  const path = relative(ROOT, resolve(ROOT, dirname(file), spec));
  return path.split('/').slice(0, 2).join('/');
}

describe('the dependency rule', () => {
  it.each([
    ['lib/engine', ['lib/engine', 'lib/ports', 'lib/common', 'node:']],
    ['lib/ports', ['lib/ports', 'node:']],
    ['lib/common', ['lib/common', 'node:']],
  ])('%s imports only %j', (dir, allowed) => {
    const offending = tsFiles(dir).flatMap((file) =>
      specifiers(file)
        .filter((spec) => !allowed.includes(target(file, spec)))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });
});

describe('file sizes', () => {
  it('no file under lib/, functions/ or infra/ exceeds 300 lines', () => {
    const long = ['lib', 'functions', 'infra']
      .flatMap(tsFiles)
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it('lib/engine/pass.ts is at most 150 lines', () => {
    expect(
      readFileSync(join(ROOT, 'lib/engine/pass.ts'), 'utf8').split('\n').length,
    ).toBeLessThanOrEqual(150);
  });
});
