/**
 * One shape for every kind: the pipeline is `lib/engine/pipeline/` (no `kind/` one letter from
 * `kinds/`); every kind of the registry has its room `kinds/<kind>/`; the root of `kinds/` holds
 * the registry alone, the shared frame sits in `kinds/frame/`; no generic folder (object/,
 * context/, listing/, the pipeline, the frame) names a kind in its code; code outside `kinds/`
 * reaches it only through the registry; each room's unit tests sit beside its name
 * (`test/unit/engine/kinds/<kind>/`); and no test file passes 600 lines.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { KINDS } from '../../../lib/engine/kinds/registry.js';
import * as PORTS from '../../../lib/ports/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const KINDS_DIR = 'lib/engine/kinds';

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** `PodDisruptionBudget` -> `pod-disruption-budget`: a kind's room. */
function roomOf(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** A file's code without its comments (block, line) and with its imports' paths kept. */
function code(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Every relative specifier of a file, resolved to a repository path (`.js` read as `.ts`). */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'";]*?from\s*(['"])(\.[^'"]+)\1/g)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), m[2] as string)).replace(/\.js$/, '.ts'),
  );
}

const REGISTERED = KINDS.map((module) => module.kind.kind);

/** The kind constants of `lib/ports` (`POD`, `SECRET`...) of the registered kinds. */
const KIND_CONSTANTS = Object.entries(PORTS)
  .filter(([, value]) => {
    const kind = (value as { kind?: unknown } | null)?.kind;
    return typeof kind === 'string' && REGISTERED.includes(kind);
  })
  .map(([name]) => name);

describe('the rooms of the kinds', () => {
  it('the pipeline is lib/engine/pipeline/: no lib/engine/kind/', () => {
    expect(existsSync(join(ROOT, 'lib/engine/kind'))).toBe(false);
    expect(existsSync(join(ROOT, 'lib/engine/pipeline'))).toBe(true);
  });

  it('every kind of the registry has its room kinds/<kind>/, and the registry imports rooms only', () => {
    const rooms = REGISTERED.map(roomOf);
    expect(rooms.filter((room) => !existsSync(join(ROOT, KINDS_DIR, room)))).toEqual([]);
    // Each module comes from its own kind's room (or the frame), never from another place.
    const from = imports(`${KINDS_DIR}/registry.ts`)
      .filter((path) => path.startsWith(`${KINDS_DIR}/`))
      .map((path) => path.split('/')[3] as string);
    expect([...new Set(from)].filter((room) => room !== 'frame' && !rooms.includes(room))).toEqual(
      [],
    );
    expect(rooms.filter((room) => !from.includes(room))).toEqual([]);
  });

  it('no kind file at the root of kinds/: the registry and the README alone', () => {
    const root = readdirSync(join(ROOT, KINDS_DIR), { withFileTypes: true });
    expect(
      root
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort(),
    ).toEqual(['README.md', 'registry.ts']);
    // Every folder is a room of a registered kind or the shared frame.
    const rooms = new Set([...REGISTERED.map(roomOf), 'frame']);
    expect(root.filter((e) => e.isDirectory() && !rooms.has(e.name)).map((e) => e.name)).toEqual(
      [],
    );
  });

  it('no generic folder names a kind in its code', () => {
    // The constants of lib/ports are found (a kind may keep its constant in its own room, as
    // HTTPRoute does: a generic folder cannot import a room, so only the literal can name it).
    expect(KIND_CONSTANTS).toEqual(expect.arrayContaining(['POD', 'SERVICE', 'INGRESS']));
    const constant = new RegExp(`\\b(?:${KIND_CONSTANTS.join('|')})\\b`);
    const literal = new RegExp(`['"\`](?:${REGISTERED.join('|')})['"\`]`);
    const generic = ['object', 'context', 'listing', 'pipeline', 'kinds/frame'].flatMap((dir) =>
      files(`lib/engine/${dir}`, /\.ts$/),
    );
    expect(generic.length).toBeGreaterThan(0);
    const naming = generic.filter((file) => constant.test(code(file)) || literal.test(code(file)));
    expect(naming).toEqual([]);
  });

  it('code outside kinds/ imports nothing of kinds/ but the registry', () => {
    const outside = ['lib', 'functions', 'infra']
      .flatMap((dir) => files(dir, /\.ts$/))
      .filter((file) => !file.startsWith(`${KINDS_DIR}/`));
    const inside = outside.flatMap((file) =>
      imports(file)
        .filter((to) => to.startsWith(`${KINDS_DIR}/`) && to !== `${KINDS_DIR}/registry.ts`)
        .map((to) => `${file} -> ${to}`),
    );
    expect(inside).toEqual([]);
  });
});

/** Lines as `wc -l` counts them: a final newline ends the last line, it starts none. */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('tests mirror the rooms', () => {
  it('every room has its unit tests beside its name, none at the root of the kinds tests', () => {
    const tests = 'test/unit/engine/kinds';
    const rooms = [...REGISTERED.map(roomOf), 'frame'];
    expect(rooms.filter((room) => !existsSync(join(ROOT, tests, room)))).toEqual([]);
    const root = readdirSync(join(ROOT, tests), { withFileTypes: true });
    expect(
      root.filter((e) => e.isFile() && e.name.endsWith('.test.ts')).map((e) => e.name),
    ).toEqual([]);
  });
});

describe('test file sizes', () => {
  it('no test file exceeds 600 lines', () => {
    const long = files('test', /\.test\.ts$/)
      .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), 'utf8')) }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });
});
