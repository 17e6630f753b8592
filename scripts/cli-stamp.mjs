/**
 * Is the built `tenantplane` command current? bin/tenantplane.js asks before every command, so
 * this module stays small and imports nothing but node builtins (not even lazily): building
 * (esbuild) lives in scripts/build-cli.mjs, which imports this module, and which
 * bin/tenantplane.js loads only when this check finds the build stale.
 *
 * The stamp (.tenantplane/cli/current.json) names the current build and records `[mtimeMs, size]`
 * of every file it was built from; any difference, newer or older, makes the build stale.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bumped when the stamp's meaning changes, so an older stamp counts as stale. */
export const STAMP_FORMAT = 1;

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Where a repository's CLI build lives.
 * @param {string} [root] the repository root (default: the one holding this script)
 */
export function cliBuildLayout(root = REPO_ROOT) {
  const outRoot = join(root, '.tenantplane', 'cli');
  return { root, outRoot, stampFile: join(outRoot, 'current.json') };
}

/**
 * `[mtimeMs, size]`, or null for a missing file: the stamp of one path.
 * @param {string} path
 * @returns {[number, number] | null}
 */
export function statOf(path) {
  try {
    const s = statSync(path);
    return [s.mtimeMs, s.size];
  } catch {
    return null;
  }
}

/** Whether a stat matches a recorded one (both missing counts as a match). */
export function sameStat(a, b) {
  if (a === null || b === null) return a === b;
  return Array.isArray(b) && a[0] === b[0] && a[1] === b[1];
}

function readStamp(layout) {
  try {
    return JSON.parse(readFileSync(layout.stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether the current build matches the sources: `{ main }` (the entry file to import) when it
 * does, `{ stale }` (why not, e.g. `lib/cli/format.ts changed`) when it does not.
 * @param {ReturnType<typeof cliBuildLayout>} [layout]
 */
export function checkCliBuild(layout = cliBuildLayout()) {
  const stamp = readStamp(layout);
  if (!stamp) return { stale: 'not built yet' };
  if (stamp.format !== STAMP_FORMAT || typeof stamp.build !== 'string' || !stamp.files) {
    return { stale: 'built by another version of scripts/build-cli.mjs' };
  }
  const main = join(layout.outRoot, stamp.build, 'main.mjs');
  if (!existsSync(main)) return { stale: `${relative(layout.root, main)} is missing` };
  for (const [path, recorded] of Object.entries(stamp.files)) {
    if (!sameStat(statOf(join(layout.root, path)), recorded)) return { stale: `${path} changed` };
  }
  return { main };
}
