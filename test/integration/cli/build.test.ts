/**
 * bin/tenantplane.js runs built JavaScript and is never stale: in a copy of the repository (so the
 * real sources are never touched), the first run builds, a second run reuses the build, and a
 * run after a source edit rebuilds and shows the edit.
 */
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NODE, REPO_ROOT, runProcess } from './support.js';

let copy: string;

const stampOf = async () =>
  JSON.parse(await readFile(join(copy, '.tenantplane/cli/current.json'), 'utf8')) as {
    build: string;
    files: Record<string, unknown>;
  };

const tenantplane = (args: string[]) =>
  runProcess(NODE, [join(copy, 'bin/tenantplane.js'), ...args]);

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'tenantplane-bin-'));
  for (const entry of ['bin', 'scripts', 'lib', 'deploy', 'package.json', 'tsconfig.json']) {
    await cp(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
  }
  await symlink(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
}, 60_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe('the built tenantplane command', () => {
  it('builds on first use, then runs the build without rebuilding', async () => {
    const first = await tenantplane(['name', 'nginx', 'default', 'dev']);
    expect(first).toEqual({ code: 0, stdout: 'nginx-x-default-x-dev\n', stderr: '' });
    const stamp = await stampOf();
    expect(stamp.files).toHaveProperty(['lib/cli/program.ts']);
    expect(stamp.files).toHaveProperty(['lib/engine/names/naming.ts']);
    const second = await tenantplane(['--version']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await stampOf()).build).toBe(stamp.build);
  });

  it('loads the Kubernetes client only in commands that talk to clusters', async () => {
    // Every chunk main.mjs imports statically is loaded by every command, `name` included.
    const dir = join(copy, '.tenantplane/cli', (await stampOf()).build);
    const loaded = new Set<string>();
    const visit = async (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = await readFile(join(dir, file), 'utf8');
      // Static imports only (`from "./x.mjs"`, `import "./x.mjs"`); `import("./x.mjs")` is lazy.
      for (const m of text.matchAll(/(?:\bfrom|^import)\s*"\.\/([^"]+\.mjs)"/gm)) {
        await visit(m[1]!);
      }
    };
    await visit('main.mjs');
    const startup = await Promise.all([...loaded].map((f) => readFile(join(dir, f), 'utf8')));
    expect(startup.join('\n')).toContain('lib/engine/names/naming.ts');
    expect(startup.join('\n')).not.toContain('node_modules/@kubernetes/client-node');
    expect(startup.join('\n')).not.toContain('node_modules/@aws-sdk/');
    // ...while the build does hold it, for the commands that load it.
    const all = await Promise.all(
      (await readdir(dir))
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => readFile(join(dir, f), 'utf8')),
    );
    expect(all.join('\n')).toContain('node_modules/@kubernetes/client-node');
  });

  it('rebuilds when a source is newer than the build, and runs the edited source', async () => {
    const before = (await stampOf()).build;
    const program = join(copy, 'lib/cli/program.ts');
    const text = await readFile(program, 'utf8');
    expect(text).toContain("'print the host name of a tenant object'");
    await writeFile(
      program,
      text.replace("'print the host name of a tenant object'", "'print the host name (edited)'"),
    );
    const run = await tenantplane(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}name .*print the host name \(edited\)$/m);
    expect((await stampOf()).build).not.toBe(before);
  });

  it('fails with exit 1 and the compiler message when a source does not compile', async () => {
    const naming = join(copy, 'lib/engine/names/naming.ts');
    const text = await readFile(naming, 'utf8');
    await writeFile(naming, `${text}\nexport const broken = ;\n`);
    const run = await tenantplane(['name', 'a', 'b', 'c']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^error: could not build the tenantplane command: lib\/engine\/names\/naming\.ts:\d+:\d+: /,
    );
    await writeFile(naming, text);
    expect(await tenantplane(['name', 'a', 'b', 'c'])).toMatchObject({
      code: 0,
      stdout: 'a-x-b-x-c\n',
    });
  });
});
