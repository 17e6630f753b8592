/**
 * The sync handler bundle. Every tenant's function runs the same code (tenant differences are
 * environment variables), so the app bundles `functions/sync/handler.ts` ONCE with esbuild and
 * every function uses that one asset: one esbuild run per synth and one S3 asset per deploy,
 * whether there are 3 tenants or 300. `NodejsFunction` mode (see TenantSyncFunction) uses the very
 * same esbuild settings, from {@link SYNC_HANDLER_BUNDLING}.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { buildSync } from 'esbuild';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SYNC_HANDLER_ENTRY = join(REPO_ROOT, 'functions', 'sync', 'handler.ts');

/** Lambda's Node runtime major, for esbuild's target. */
export const NODE_TARGET = 'node24';

/**
 * ESM output needs a `require` for the CommonJS dependencies esbuild inlines (they call
 * `require('node:…')`), plus `__dirname`/`__filename` some of them read.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __tpCreateRequire } from 'node:module';" +
  "import { fileURLToPath as __tpFileURLToPath } from 'node:url';" +
  "import { dirname as __tpDirname } from 'node:path';" +
  'const require = __tpCreateRequire(import.meta.url);' +
  'const __filename = __tpFileURLToPath(import.meta.url);' +
  'const __dirname = __tpDirname(__filename);';

/**
 * Bundling settings for `NodejsFunction`. Everything is bundled, AWS SDK included (no reliance on
 * the SDK version the runtime happens to ship), minified, with an external source map.
 */
export const SYNC_HANDLER_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  target: NODE_TARGET,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  externalModules: [],
  forceDockerBundling: false,
};

export const BUNDLE_FILE = 'index.mjs';
export const BUNDLE_HANDLER = 'index.handler';

export interface BundleResult {
  /** Directory holding index.mjs and index.mjs.map: the asset. */
  dir: string;
  /** Bytes of index.mjs. */
  bytes: number;
  /** Milliseconds esbuild took. */
  ms: number;
}

let cached: BundleResult | undefined;

/**
 * Bundles the handler into `outdir` (default: a cache directory under node_modules) with the
 * settings above. Memoized per process: the first call builds, the rest reuse it.
 */
export function bundleSyncHandler(outdir?: string): BundleResult {
  if (cached && outdir === undefined) return cached;
  const dir = outdir ?? join(REPO_ROOT, 'node_modules', '.cache', 'tenantplane', 'sync-handler');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  buildSync({
    entryPoints: [SYNC_HANDLER_ENTRY],
    outfile: join(dir, BUNDLE_FILE),
    bundle: true,
    platform: 'node',
    target: NODE_TARGET,
    format: 'esm',
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    legalComments: 'none',
    logLevel: 'error',
  });
  const result: BundleResult = {
    dir,
    bytes: statSync(join(dir, BUNDLE_FILE)).size,
    ms: Math.round(performance.now() - started),
  };
  if (outdir === undefined) cached = result;
  return result;
}
