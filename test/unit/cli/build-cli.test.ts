/**
 * The compiled command is never stale: scripts/build-cli.mjs stamps every file a build read, and
 * any change (newer, older, added to a source directory) makes the next run rebuild. Builds a
 * tiny repository in a temporary directory with the real build function.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  buildCli,
  CliBuildError,
  type CliBuildLayout,
  checkCliBuild,
  cliBuildLayout,
  ensureCliBuild,
} from '../../../scripts/build-cli.mjs';

let root: string;
let layout: CliBuildLayout;

async function write(path: string, text: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), text);
}

/** Runs a built entry file and returns what it printed. */
function runBuilt(main: string): string {
  return execFileSync(process.execPath, [main], { encoding: 'utf8' });
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tenantplane-build-'));
  layout = cliBuildLayout(root);
  await write('package.json', '{"type": "module"}\n');
  await write('lib/cli/greeting.ts', "export const greeting: string = 'hello';\n");
  await write(
    'lib/cli/main.ts',
    "import { greeting } from './greeting.js';\nconsole.log(greeting, import.meta.url);\n",
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the CLI build', () => {
  it('is stale before the first build, and fresh after it', async () => {
    expect(checkCliBuild(layout)).toEqual({ stale: 'not built yet' });
    const built = await buildCli(layout);
    expect(built.main.startsWith(join(root, '.tenantplane', 'cli', 'build-'))).toBe(true);
    expect(checkCliBuild(layout)).toEqual({ main: built.main });
    expect(await ensureCliBuild(layout)).toBe(built.main);
  });

  it('keeps import.meta.url pointing at the source, so modules still find repository files', async () => {
    const main = await ensureCliBuild(layout);
    const source = pathToFileURL(join(root, 'lib/cli/main.ts')).href;
    expect(runBuilt(main)).toBe(`hello ${source}\n`);
  });

  it('rebuilds after a source changed, and runs the new source', async () => {
    const before = await ensureCliBuild(layout);
    await write('lib/cli/greeting.ts', "export const greeting: string = 'bonjour';\n");
    expect(checkCliBuild(layout).stale).toBe('lib/cli/greeting.ts changed');
    const after = await ensureCliBuild(layout);
    expect(after).not.toBe(before);
    expect(runBuilt(after)).toMatch(/^bonjour /);
    expect(checkCliBuild(layout)).toEqual({ main: after });
  });

  it('counts an older mtime as a change too (a restored or copied file)', async () => {
    await ensureCliBuild(layout);
    const path = join(root, 'lib/cli/greeting.ts');
    const { mtime } = await stat(path);
    const older = new Date(mtime.getTime() - 60_000);
    await utimes(path, older, older);
    expect(checkCliBuild(layout).stale).toBe('lib/cli/greeting.ts changed');
  });

  it('rebuilds when a file appears in a source directory (an import may now resolve to it)', async () => {
    await ensureCliBuild(layout);
    const dirStamp = JSON.parse(await readFile(layout.stampFile, 'utf8')).files['lib/cli'];
    expect(dirStamp).toBeTruthy();
    await write('lib/cli/new-module.ts', 'export {};\n');
    // Directory mtimes can be coarse: make the change visible whatever the filesystem.
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, 'lib/cli'), later, later);
    expect(checkCliBuild(layout).stale).toBe('lib/cli changed');
  });

  it('rebuilds when a dependency install or the compiler settings change', async () => {
    await ensureCliBuild(layout);
    await write('tsconfig.json', '{}\n');
    expect(checkCliBuild(layout).stale).toBe('tsconfig.json changed');
    await ensureCliBuild(layout);
    await write('node_modules/.package-lock.json', '{}\n');
    expect(checkCliBuild(layout).stale).toBe('node_modules/.package-lock.json changed');
  });

  it('rebuilds when the build itself is gone', async () => {
    const main = await ensureCliBuild(layout);
    await rm(join(main, '..'), { recursive: true, force: true });
    expect(checkCliBuild(layout).stale).toMatch(/main\.mjs is missing$/);
    expect(runBuilt(await ensureCliBuild(layout))).toMatch(/^bonjour /);
  });

  it('reports a source that does not compile as a CliBuildError naming file and line, and keeps the stamp', async () => {
    const good = await ensureCliBuild(layout);
    await write('lib/cli/greeting.ts', "export const greeting: string = 'oops;\n");
    const error = await buildCli(layout).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliBuildError);
    expect(String((error as Error).message)).toMatch(
      /^could not build the tenantplane command: lib\/cli\/greeting\.ts:1:\d+: Unterminated string/,
    );
    // The last good build stays current, and the broken source keeps it stale.
    expect(checkCliBuild(layout).stale).toBe('lib/cli/greeting.ts changed');
    expect(JSON.parse(await readFile(layout.stampFile, 'utf8')).build).toBe(good.split('/').at(-2));
    await write('lib/cli/greeting.ts', "export const greeting: string = 'hello';\n");
  });
});
