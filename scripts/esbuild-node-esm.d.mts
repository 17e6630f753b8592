/** Types of scripts/esbuild-node-esm.mjs (plain JavaScript: scripts/build-cli.mjs runs without tsx). */
import type { BuildOptions } from 'esbuild';

/** One ESM bundle for Node: every dependency inlined, target node24, with a `require` banner. */
export const NODE_ESM_BUILD_OPTIONS: BuildOptions;
