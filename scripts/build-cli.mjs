/**
 * Builds the compiled `tenantplane` command (scripts/cli-stamp.mjs is the check, run before every
 * command, that keeps it from ever being stale).
 *
 * bin/tenantplane.js runs built JavaScript, not TypeScript through tsx: importing the Kubernetes
 * client through tsx alone costs seconds. The build is one esbuild run over lib/cli/main.ts with
 * the Lambda bundle's settings (scripts/esbuild-node-esm.mjs; not minified), code-split so
 * that each command loads only what it uses (`tenantplane name` never loads the Kubernetes
 * client).
 *
 * Layout, under .tenantplane/cli/ (git-ignored; neither tsc nor biome look there; the stamp and
 * the check that reads it are in scripts/cli-stamp.mjs):
 *   build-<id>/main.mjs, chunk-*.mjs   one build. A new build goes to a new directory, because a
 *                                      command still running may yet load chunks of the old one.
 *   current.json                       the stamp: the current build, and the mtime and size of
 *                                      every file it was built from (sources, their directories,
 *                                      lockfiles, compiler settings, this script). It is replaced
 *                                      atomically (rename), so concurrent commands never see half.
 *
 * Before every command, bin/tenantplane.js stats the stamp's files (`checkCliBuild`, a few
 * milliseconds); any difference, newer or older, rebuilds first. Sources are read by a plugin
 * that stats each file before and after reading it, so an edit made while a build runs is never
 * recorded as built.
 *
 * As a script (`npm run build:cli`, and npm's `prepare` after `npm ci`): builds when stale;
 * `--force` builds regardless.
 */
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkCliBuild, cliBuildLayout, STAMP_FORMAT, sameStat, statOf } from './cli-stamp.mjs';
import { NODE_ESM_BUILD_OPTIONS } from './esbuild-node-esm.mjs';

// The freshness check and its layout, for callers that import this module.
export { checkCliBuild, cliBuildLayout } from './cli-stamp.mjs';

/** The entry point, relative to the repository root. */
const ENTRY = 'lib/cli/main.ts';

/**
 * Files that change the build without being sources it imports: dependency installs (npm
 * rewrites node_modules/.package-lock.json on every install), compiler settings, this script.
 * Dependencies are stamped through these rather than file by file: a bundle reads ~2,000 files
 * under node_modules, and npm never changes one without rewriting its lockfile.
 */
const SETTINGS_INPUTS = [
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'tsconfig.json',
  'scripts/build-cli.mjs',
  'scripts/cli-stamp.mjs',
  'scripts/esbuild-node-esm.mjs',
];

/**
 * Older builds are kept this long: a command still running may load chunks from one (the first
 * `sync` waits minutes for the local control plane to be built before it loads the client).
 */
const KEEP_OLD_BUILDS_MS = 60 * 60 * 1000;
/** Beyond this many, builds older than {@link KEEP_RECENT_BUILDS_MS} go too (edits rebuild often). */
const KEEP_BUILDS = 5;
const KEEP_RECENT_BUILDS_MS = 10 * 60 * 1000;

/** A build that failed; the message carries esbuild's diagnostics (file:line: problem). */
export class CliBuildError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'CliBuildError';
  }
}

/** Repository-relative path with forward slashes (the stamp is portable within the checkout). */
function rel(root, path) {
  return relative(root, path).split(sep).join('/');
}

/**
 * An esbuild plugin that reads the repository's own TypeScript itself, to stamp exactly what was
 * built: each file's stat before reading, discarded (`[-1, -1]`, so the next run rebuilds) when
 * the file changed while it was read. It also pins `import.meta.url` to the source file's URL:
 * modules find repository files relative to themselves (the CRD manifest, package.json), which
 * must keep working from the bundle's directory.
 */
function sourcesPlugin(root, files) {
  return {
    name: 'tenantplane-sources',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const dir = dirname(args.path);
        // A directory's mtime changes when an entry is added or renamed, which can change what
        // an import resolves to.
        files[rel(root, dir)] ??= statOf(dir);
        const before = statOf(args.path);
        const text = readFileSync(args.path, 'utf8');
        const after = statOf(args.path);
        files[rel(root, args.path)] = sameStat(before, after) ? before : [-1, -1];
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/**
 * Removes builds other than `keep` older than {@link KEEP_OLD_BUILDS_MS}, or beyond the newest
 * {@link KEEP_BUILDS} and older than {@link KEEP_RECENT_BUILDS_MS}; and stray stamps.
 */
function pruneOldBuilds(layout, keep) {
  const now = Date.now();
  const entries = readdirSync(layout.outRoot, { withFileTypes: true })
    .filter((e) => e.name !== keep)
    .map((e) => ({ entry: e, path: join(layout.outRoot, e.name) }))
    .map((e) => ({ ...e, age: now - (statOf(e.path)?.[0] ?? 0) }))
    .sort((a, b) => a.age - b.age);
  let builds = 1;
  for (const { entry, path, age } of entries) {
    if (entry.isDirectory() && entry.name.startsWith('build-')) {
      builds += 1;
      const tooMany = builds > KEEP_BUILDS && age > KEEP_RECENT_BUILDS_MS;
      if (age > KEEP_OLD_BUILDS_MS || tooMany) rmSync(path, { recursive: true, force: true });
    } else if (
      entry.isFile() &&
      entry.name.startsWith('current.json.tmp-') &&
      age > KEEP_RECENT_BUILDS_MS
    ) {
      rmSync(path, { force: true });
    }
  }
}

/**
 * Builds the command into a new build directory and makes it current.
 * @param {ReturnType<typeof cliBuildLayout>} [layout]
 * @returns {Promise<{ main: string, ms: number, files: number }>} the entry file, how long the
 *   build took and how many repository files it was stamped with
 * @throws {CliBuildError} when esbuild cannot build the sources, or is not installed
 */
export async function buildCli(layout = cliBuildLayout()) {
  const started = performance.now();
  /** @type {Record<string, [number, number] | null>} */
  const files = {};
  // Stat settings first: a change while esbuild runs then shows up as stale on the next run.
  for (const path of SETTINGS_INPUTS) files[path] = statOf(join(layout.root, path));
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new CliBuildError(`esbuild is not installed (${error.message}); run npm ci`);
  }
  mkdirSync(layout.outRoot, { recursive: true });
  const build = `build-${Date.now().toString(36)}-${process.pid}`;
  const outdir = join(layout.outRoot, build);
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: layout.root,
      entryPoints: { main: ENTRY },
      outdir,
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunk-[hash]',
      ...NODE_ESM_BUILD_OPTIONS,
      splitting: true,
      // Not minified, unlike the Lambda bundle: commands start as fast either way (measured), a
      // rebuild after an edit takes about half the time, and stack traces stay readable (each
      // module is marked with its source path), so no source map is needed either.
      minify: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [sourcesPlugin(layout.root, files)],
    });
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    // One line per problem, `file:line:column: what`, like a compiler.
    const messages = Array.isArray(error?.errors)
      ? error.errors.map((m) =>
          m.location
            ? `${m.location.file}:${m.location.line}:${m.location.column}: ${m.text}`
            : m.text,
        )
      : [String(error?.message ?? error)];
    throw new CliBuildError(`could not build the tenantplane command: ${messages.join('\n  ')}`);
  }
  // Repository inputs the plugin did not read (JSON, plain JavaScript) are stamped as they are now.
  for (const input of Object.keys(result.metafile.inputs)) {
    if (input.startsWith('node_modules/') || input.includes('/node_modules/')) continue;
    files[input] ??= statOf(join(layout.root, input));
  }
  const stamp = { format: STAMP_FORMAT, build, builtAt: new Date().toISOString(), files };
  const tmp = `${layout.stampFile}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, `${JSON.stringify(stamp, null, 1)}\n`);
  renameSync(tmp, layout.stampFile);
  pruneOldBuilds(layout, build);
  return {
    main: join(outdir, 'main.mjs'),
    ms: Math.round(performance.now() - started),
    files: Object.keys(files).length,
  };
}

/**
 * The entry file of a build that matches the sources, building one first when needed (what
 * bin/tenantplane.js does before every command, without loading this module when the build is
 * current).
 * @param {ReturnType<typeof cliBuildLayout>} [layout]
 * @returns {Promise<string>}
 * @throws {CliBuildError} when a needed build fails
 */
export async function ensureCliBuild(layout = cliBuildLayout()) {
  const checked = checkCliBuild(layout);
  if (checked.main) return checked.main;
  return (await buildCli(layout)).main;
}

async function script(argv) {
  const layout = cliBuildLayout();
  const { stale } = checkCliBuild(layout);
  if (!argv.includes('--force') && stale === undefined) {
    console.log(`tenantplane command is up to date (${rel(layout.root, layout.outRoot)})`);
    return;
  }
  const built = await buildCli(layout);
  console.log(
    `built the tenantplane command in ${built.ms} ms: ${rel(layout.root, built.main)} (${stale ?? 'forced'})`,
  );
}

/** Whether this module is the script node was started with (not imported by bin/tenantplane.js). */
function isMainScript() {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMainScript()) {
  try {
    await script(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof CliBuildError ? error.message : error);
    process.exit(1);
  }
}
