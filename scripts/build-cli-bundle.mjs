/**
 * Bundles the whole `tenantplane` command (lib/cli/main.ts) into ONE file for a stock Node.js 24
 * image: `npm run build:cli-bundle` writes .tenantplane/cli-bundle/tenantplane.mjs and its gzip,
 * tenantplane.mjs.gz, which deploy/follow/ mounts from a ConfigMap (see its README) to run
 * `tenantplane sync <tenant> --follow` as a Deployment. The built command of bin/tenantplane.js
 * is code-split into many files, which a ConfigMap key cannot hold; this one is not. The settings
 * are the Lambda bundle's (scripts/esbuild-node-esm.mjs), minified; no source map. A ConfigMap
 * holds at most 1 MiB, so the build fails when the gzip does not fit.
 *
 *   node scripts/build-cli-bundle.mjs [--outdir <dir>]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { NODE_ESM_BUILD_OPTIONS } from './esbuild-node-esm.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
const outdir = resolve(values.outdir ?? join(ROOT, '.tenantplane', 'cli-bundle'));
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, 'tenantplane.mjs');

await build({
  entryPoints: [join(ROOT, 'lib', 'cli', 'main.ts')],
  outfile,
  ...NODE_ESM_BUILD_OPTIONS,
  minify: true,
  logLevel: 'error',
});
const bundle = readFileSync(outfile);
const gz = gzipSync(bundle, { level: 9 });
// What is left of the 1 MiB for the ConfigMap's own fields.
const CONFIGMAP_ROOM = 1024 * 1024 - 16 * 1024;
if (gz.length > CONFIGMAP_ROOM) {
  process.stderr.write(`${outfile}.gz is ${gz.length} bytes: over what one ConfigMap holds\n`);
  process.exit(1);
}
writeFileSync(`${outfile}.gz`, gz);
process.stdout.write(
  `${outfile} (${(bundle.length / 1024).toFixed(0)} KiB; gzip ${(gz.length / 1024).toFixed(0)} KiB)\n`,
);
