/**
 * The sync handler bundle. Every tenant's function runs the same code (tenant differences are
 * environment variables), so the app bundles `functions/sync/handler.ts` ONCE with esbuild and
 * every function uses that one asset: one esbuild run per synth and one S3 asset per deploy,
 * whether there are 3 tenants or 300.
 *
 * The build needs esbuild plugins (infra/bundle-plugins.ts), which only esbuild's JavaScript API
 * runs; that is why the app bundles here rather than through `NodejsFunction` (it runs the esbuild
 * CLI, which takes no plugins). The CDK app, the bundle-size test, the bundle integration test and
 * the benchmark all build through {@link bundleSyncHandler}, with {@link syncHandlerBuildOptions}.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { NODE_ESM_BUILD_OPTIONS } from '../scripts/esbuild-node-esm.mjs';
import { omitModules, sideEffectFree, UNDICI_UNUSED_PARSERS } from './bundle-plugins.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SYNC_HANDLER_ENTRY = join(REPO_ROOT, 'functions', 'sync', 'handler.ts');

/** The wake function (docs/wake.md): a bundle of its own, small (no Kubernetes client). */
export const WAKE_HANDLER_ENTRY = join(REPO_ROOT, 'functions', 'wake', 'handler.ts');

export const BUNDLE_FILE = 'index.mjs';
export const BUNDLE_HANDLER = 'index.handler';

/**
 * The most `index.mjs` may weigh, in bytes (1.47 MB). A bigger bundle costs every cold start its
 * parse and compile time; `test/infra/bundle.test.ts` fails past it and names the biggest inputs.
 * Raised from 1.2 MB when the workload translators (Pods, Services, claims, Ingresses,
 * NetworkPolicies) and the per-tenant credential checks took the bundle to 1.21 MB, and from
 * 1.25 MB when classes from the host, tenant Nodes and Events back took it to 1.26 MB, and from
 * 1.3 MB when the isolation checks (the Pod Security Standards, the Service, endpoint,
 * NetworkPolicy and Ingress limits: about 25 KB of engine code) took it to 1.32 MB, and from
 * 1.35 MB when EKS clusters reached with the function's role (the EKS client for DescribeCluster,
 * about 55 KB of it the service's schemas, and the SigV4 presigner of the token) took it to
 * 1.41 MB, and from 1.42 MB when the back-off on 429 as `Retry-After` says (about 4.6 KB
 * minified: the throttled clients and their words) and woken invocations (the wake event,
 * following whatever the pass found, the bounded wait for a lease a pass holds: about 1 KB) took
 * it to about 1.425 MB, and from 1.435 MB when the Pod field tables (every field of 1.37, each
 * decided) and the three Gateway API route kinds took it to 1.4433 MB, and from 1.45 MB when the
 * host's Pod schema (which fields an older host serves: the OpenAPI read and its Skip, about 7 KB)
 * took it to 1.4508 MB, and from 1.46 MB when the allowed host Gateways shown in the tenant (their
 * read-only copies and status, about 6 KB) and the probes of Pod fields an older host's feature
 * gates keep off (the dry-run create per field, about 3 KB) took it to 1.4612 MB. The kubelet gateway and the wake function are bundles of their own and
 * never part of this one.
 */
export const BUNDLE_BUDGET_BYTES = 1_470_000;

/**
 * The one set of esbuild options for the handler: the repository's Node ESM bundle settings
 * (scripts/esbuild-node-esm.mjs, shared with the compiled command). Everything is bundled, AWS
 * SDK included (no reliance on the SDK version the runtime happens to ship), minified, with an external
 * source map (the functions run with `--enable-source-maps`) and a metafile (what went in).
 */
export function syncHandlerBuildOptions(outdir: string): BuildOptions & { metafile: true } {
  return {
    entryPoints: [SYNC_HANDLER_ENTRY],
    outfile: join(outdir, BUNDLE_FILE),
    ...NODE_ESM_BUILD_OPTIONS,
    minify: true,
    sourcemap: 'external',
    sourcesContent: false,
    logLevel: 'error',
    metafile: true,
    plugins: [sideEffectFree(['@kubernetes/client-node']), omitModules(UNDICI_UNUSED_PARSERS)],
  };
}

export interface BundleResult {
  /** Directory holding index.mjs and index.mjs.map: the asset. */
  dir: string;
  /** Path of index.mjs. */
  file: string;
  /** Bytes of index.mjs. */
  bytes: number;
  /** Milliseconds esbuild took. */
  ms: number;
  /** esbuild's account of every input and how many bytes of it reached the output. */
  metafile: Metafile;
}

/** Where the app's bundle is built (ignored by git, like the rest of node_modules). */
export const DEFAULT_BUNDLE_DIR = join(
  REPO_ROOT,
  'node_modules',
  '.cache',
  'tenantplane',
  'sync-handler',
);

let cached: Promise<BundleResult> | undefined;

async function buildInto(
  dir: string,
  options: BuildOptions & { metafile: true } = syncHandlerBuildOptions(dir),
): Promise<BundleResult> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const { metafile } = await build(options);
  const file = join(dir, BUNDLE_FILE);
  return {
    dir,
    file,
    bytes: statSync(file).size,
    ms: Math.round(performance.now() - started),
    metafile,
  };
}

/**
 * Bundles the handler into `outdir` (default {@link DEFAULT_BUNDLE_DIR}) with
 * {@link syncHandlerBuildOptions}. Memoized per process for the default directory: the first call
 * builds, the rest reuse it.
 */
export function bundleSyncHandler(outdir?: string): Promise<BundleResult> {
  if (outdir !== undefined) return buildInto(outdir);
  cached ??= buildInto(DEFAULT_BUNDLE_DIR);
  return cached;
}

/** Where the app's wake bundle is built. */
export const DEFAULT_WAKE_BUNDLE_DIR = join(DEFAULT_BUNDLE_DIR, '..', 'wake-handler');

let cachedWake: Promise<BundleResult> | undefined;

/**
 * Bundles the wake function (functions/wake/handler.ts) with the sync handler's options, into
 * `outdir` (default {@link DEFAULT_WAKE_BUNDLE_DIR}, memoized per process).
 */
export function bundleWakeHandler(outdir?: string): Promise<BundleResult> {
  const into = async (dir: string) =>
    buildInto(dir, { ...syncHandlerBuildOptions(dir), entryPoints: [WAKE_HANDLER_ENTRY] });
  if (outdir !== undefined) return into(outdir);
  cachedWake ??= into(DEFAULT_WAKE_BUNDLE_DIR);
  return cachedWake;
}
