/**
 * The dependency rule: the engine is pure and imports only `lib/ports` and `lib/common` (plus
 * node builtins); ports and common import nothing else of the product; inside the engine the
 * concern folders form a ladder (a folder imports only the folders below it, type imports
 * included), no module of the repository (lib/, functions/, infra/, scripts/, bin/, test/...)
 * imports itself back through a circle, code outside the engine reaches it only through its index,
 * no file under lib/, functions/ or infra/ grows past 300 lines, and the pass stays a short story.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/**
 * Every module specifier a file imports or re-exports, type-only, side-effect-only
 * (`import './x.js'`) and dynamic (`import('./x.js')`) imports included, in either quotes.
 */
function specifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [
    ...text.matchAll(/(?:import|export)[^'";]*?from\s*(['"])([^'"]+)\1/g),
    ...text.matchAll(/^\s*import\s*(['"])([^'"]+)\1/gm),
    ...text.matchAll(/import\(\s*(['"])([^'"]+)\1\s*\)/g),
  ].map((m) => m[2] as string);
}

/** The repository path a relative specifier resolves to (`.js` read as the `.ts` source). */
function resolved(file: string, spec: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
}

/**
 * Folders that hold no source of the repository: installs, build output (the CDK's, the compiled
 * command's), coverage reports, git's own.
 */
const NOT_SOURCE = new Set(['node_modules', 'cdk.out', '.tenantplane', 'coverage', '.git']);

/** A module: TypeScript, or plain JavaScript (scripts/, bin/, jest's setup), declarations too. */
const MODULE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** Every module of the repository, wherever it lives, outside {@link NOT_SOURCE}. */
function repositoryModules(dir = '.'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir === '.' ? e.name : `${dir}/${e.name}`;
    if (e.isDirectory()) return NOT_SOURCE.has(e.name) ? [] : repositoryModules(path);
    return e.isFile() && MODULE.test(e.name) ? [path] : [];
  });
}

/**
 * The module a relative specifier loads, among `modules`, the way TypeScript (NodeNext, `.js`
 * meaning the `.ts` source) and jest (no extension) resolve it; undefined when it is none of them.
 */
function moduleAt(modules: ReadonlySet<string>, file: string, spec: string): string | undefined {
  const path = relative(ROOT, resolve(ROOT, dirname(file), spec)).replaceAll(sep, '/');
  const source = path.replace(/\.([cm]?)js$/, '.$1ts');
  return [path, source, `${path}.ts`, `${path}.js`, `${path}/index.ts`, `${path}/index.js`].find(
    (candidate) => modules.has(candidate),
  );
}

/** The product folder (`lib/ports`, `lib/engine`...) a relative import lands in, or the package. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec.startsWith('node:') ? 'node:' : spec;
  return resolved(file, spec).split('/').slice(0, 2).join('/');
}

/**
 * The engine's concern folders, lowest first: a file may import its own folder and the folders
 * before it, never one after it. `errors.ts` (the pass-level errors) sits at the root below every
 * folder; `index.ts` above them all.
 */
const ENGINE_ORDER = [
  'errors.ts',
  'names',
  'policy',
  'bounds',
  'tenant',
  'object',
  'listing',
  'context',
  'gc',
  'kinds',
  'pipeline',
  'classes',
  'events',
  'report',
  'pass',
  'follow',
  'index.ts',
] as const;

/** The rung of an engine path (`lib/engine/gc/gc.ts` -> the index of `gc`). */
function rung(path: string): number {
  const part = path.split('/')[2] ?? '';
  return ENGINE_ORDER.indexOf(part as (typeof ENGINE_ORDER)[number]);
}

describe('the dependency rule', () => {
  it.each([
    ['lib/engine', ['lib/engine', 'lib/ports', 'lib/common', 'node:']],
    ['lib/ports', ['lib/ports', 'node:']],
    ['lib/common', ['lib/common', 'node:']],
    // The wake core: pure, shared by the wake function, the CLI and the local plane.
    ['lib/wake', ['lib/wake', 'lib/common', 'node:']],
    // The kubelet gateway: the engine (through its index: names), the kubeconfig loader, YAML.
    [
      'lib/gateway',
      ['lib/gateway', 'lib/engine', 'lib/ports', 'lib/common', 'lib/adapters', 'node:', 'js-yaml'],
    ],
  ])('%s imports only %j', (dir, allowed) => {
    const offending = tsFiles(dir).flatMap((file) =>
      specifiers(file)
        .filter((spec) => !allowed.includes(target(file, spec)))
        .map((spec) => `${file} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('every engine file sits on a rung of the folder order', () => {
    expect(tsFiles('lib/engine').filter((file) => rung(file) < 0)).toEqual([]);
  });

  it('an engine folder imports only its own folder and the folders below it', () => {
    const upward = tsFiles('lib/engine').flatMap((file) =>
      specifiers(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolved(file, spec))
        .filter((to) => to.startsWith('lib/engine/') && rung(to) > rung(file))
        .map((to) => `${file} -> ${to}`),
    );
    expect(upward).toEqual([]);
  });

  it('code outside the engine imports only the engine index', () => {
    const outside = ['lib', 'functions', 'infra']
      .flatMap(tsFiles)
      .filter((file) => !file.startsWith('lib/engine/'));
    const internal = outside.flatMap((file) =>
      specifiers(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolved(file, spec))
        .filter((to) => to.startsWith('lib/engine/') && to !== 'lib/engine/index.ts')
        .map((to) => `${file} -> ${to}`),
    );
    expect(internal).toEqual([]);
  });

  it('no module of the repository imports itself back through a circle', () => {
    const files = repositoryModules();
    // Every source folder is covered, not only the product's.
    for (const dir of ['lib/', 'functions/', 'infra/', 'scripts/', 'bin/', 'test/']) {
      expect(files.filter((file) => file.startsWith(dir)).length).toBeGreaterThan(0);
    }
    const modules = new Set(files);
    const edges = new Map(
      files.map((file) => [
        file,
        new Set(
          specifiers(file)
            .filter((spec) => spec.startsWith('.'))
            .map((spec) => moduleAt(modules, file, spec))
            .filter((to): to is string => to !== undefined && to !== file),
        ),
      ]),
    );
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
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

  it('lib/engine/pass/pass.ts is at most 150 lines', () => {
    expect(
      readFileSync(join(ROOT, 'lib/engine/pass/pass.ts'), 'utf8').split('\n').length,
    ).toBeLessThanOrEqual(150);
  });
});
