/**
 * Bundles the kubelet gateway (lib/gateway, run by lib/cli/gateway-main.ts) into ONE file for a
 * stock Node.js 24 image: `npm run build:gateway` writes .tenantplane/gateway/gateway.mjs and
 * its gzip, gateway.mjs.gz, which deploy/gateway/ mounts from a ConfigMap (see its README).
 * The settings are the Lambda bundle's (scripts/esbuild-node-esm.mjs), minified; no source map.
 *
 *   node scripts/build-gateway.mjs [--outdir <dir>]
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
const outdir = resolve(values.outdir ?? join(ROOT, '.tenantplane', 'gateway'));
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, 'gateway.mjs');

await build({
  entryPoints: [join(ROOT, 'lib', 'cli', 'gateway-main.ts')],
  outfile,
  ...NODE_ESM_BUILD_OPTIONS,
  minify: true,
  logLevel: 'error',
});
const bundle = readFileSync(outfile);
const gz = gzipSync(bundle, { level: 9 });
writeFileSync(`${outfile}.gz`, gz);
process.stdout.write(
  `${outfile} (${(bundle.length / 1024).toFixed(0)} KiB; gzip ${(gz.length / 1024).toFixed(0)} KiB)\n`,
);
