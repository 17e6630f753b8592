/**
 * One-file bundles that deploy/ mounts from a ConfigMap into a stock Node.js 24 image (the kubelet
 * gateway, the `tenantplane` command for a long-lived follow). The settings are the Lambda
 * bundle's (scripts/esbuild-node-esm.mjs), minified, no source map; beside `<name>.mjs` goes its
 * gzip, `<name>.mjs.gz`, which is what the ConfigMap holds. A ConfigMap holds at most 1 MiB, so
 * the build fails when the gzip does not fit.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { NODE_ESM_BUILD_OPTIONS } from './esbuild-node-esm.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// What is left of the 1 MiB for the ConfigMap's own fields.
const CONFIGMAP_ROOM = 1024 * 1024 - 16 * 1024;

/**
 * Bundles `entry` (a path from the project root) into `<outdir>/<name>.mjs` and its gzip; the
 * outdir is `--outdir` of the command line, else `.tenantplane/<defaultDir>`.
 */
export async function buildConfigMapBundle({ entry, name, defaultDir }) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  const outdir = resolve(values.outdir ?? join(ROOT, '.tenantplane', defaultDir));
  mkdirSync(outdir, { recursive: true });
  const outfile = join(outdir, `${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    ...NODE_ESM_BUILD_OPTIONS,
    minify: true,
    logLevel: 'error',
  });
  const bundle = readFileSync(outfile);
  const gz = gzipSync(bundle, { level: 9 });
  if (gz.length > CONFIGMAP_ROOM) {
    process.stderr.write(`${outfile}.gz is ${gz.length} bytes: over what one ConfigMap holds\n`);
    process.exit(1);
  }
  writeFileSync(`${outfile}.gz`, gz);
  process.stdout.write(
    `${outfile} (${(bundle.length / 1024).toFixed(0)} KiB; gzip ${(gz.length / 1024).toFixed(0)} KiB)\n`,
  );
}
