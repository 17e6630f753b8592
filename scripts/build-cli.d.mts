/** Types of scripts/build-cli.mjs (plain JavaScript: bin/tenantplane.js runs it before anything is built). */

/** Where a repository's CLI build lives. */
export interface CliBuildLayout {
  /** The repository root. */
  root: string;
  /** `.tenantplane/cli` under the root: the builds and the stamp. */
  outRoot: string;
  /** `current.json`: the current build and the stat of every file it was built from. */
  stampFile: string;
}

/** A build that failed; the message carries esbuild's diagnostics (file:line: problem). */
export class CliBuildError extends Error {}

/** The layout for `root` (default: the repository holding the script). */
export function cliBuildLayout(root?: string): CliBuildLayout;

/**
 * Whether the current build matches the sources: `{ main }` (the entry file to import) when it
 * does, `{ stale }` (why not, e.g. `lib/cli/format.ts changed`) when it does not.
 */
export function checkCliBuild(layout?: CliBuildLayout): { main?: string; stale?: string };

/** Builds the command into a new build directory and makes it current. */
export function buildCli(
  layout?: CliBuildLayout,
): Promise<{ main: string; ms: number; files: number }>;

/** The entry file of a build that matches the sources, building one first when needed. */
export function ensureCliBuild(layout?: CliBuildLayout): Promise<string>;
