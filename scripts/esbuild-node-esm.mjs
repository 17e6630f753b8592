/**
 * The esbuild settings both bundles of this repository share: the Lambda handler
 * (infra/bundle.ts) and the compiled command (scripts/build-cli.mjs). Plain JavaScript, so the
 * script imports it without tsx.
 */

/**
 * ESM output needs a `require` for the CommonJS dependencies esbuild inlines (they call
 * `require('node:…')`), plus `__dirname`/`__filename` some of them read.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __tpCreateRequire } from 'node:module';" +
  "import { fileURLToPath as __tpFileURLToPath } from 'node:url';" +
  "import { dirname as __tpDirname } from 'node:path';" +
  'const require = __tpCreateRequire(import.meta.url);' +
  'const __filename = __tpFileURLToPath(import.meta.url);' +
  'const __dirname = __tpDirname(__filename);';

/**
 * One ESM bundle for Node: every dependency inlined, for Lambda's Node runtime major (target
 * node24), preferring dependencies' ESM builds, without legal comments.
 * @type {import('esbuild').BuildOptions}
 */
export const NODE_ESM_BUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  legalComments: 'none',
};
