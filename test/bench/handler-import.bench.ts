/**
 * The sync handler as Lambda gets it: bundle it with the app's esbuild settings, report its
 * size and biggest inputs, and time a cold `import()` of the bundle in fresh Node processes (with
 * and without `--enable-source-maps`, which the functions run with). Not a test: prints numbers.
 *
 *   npx tsx test/bench/handler-import.bench.ts [runs]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { BUNDLE_BUDGET_BYTES, bundleSyncHandler } from '../../infra/bundle.js';
import { describeBiggest } from '../../infra/bundle-report.js';

const runs = Number(process.argv[2] ?? 7);
const bundle = await bundleSyncHandler();
const file = bundle.file;
const map = statSync(`${file}.map`).size;
const zipped = gzipSync(readFileSync(file)).length;

const probe = `
const t0 = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(file).href)});
const t1 = performance.now();
if (typeof m.handler !== 'function') throw new Error('no handler export');
process.stdout.write(JSON.stringify({ importMs: t1 - t0, rssMiB: process.memoryUsage().rss / 2 ** 20 }));
`;

function sample(flags: string[]): { importMs: number; rssMiB: number; processMs: number } {
  const started = performance.now();
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', probe], {
    env: { PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });
  return {
    ...(JSON.parse(out) as { importMs: number; rssMiB: number }),
    processMs: performance.now() - started,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

function measure(label: string, flags: string[]): void {
  sample(flags); // warm the OS file cache; every run is still a cold Node process
  const samples = Array.from({ length: runs }, () => sample(flags));
  const imp = samples.map((s) => s.importMs);
  console.log(
    `${label.padEnd(28)} import median ${median(imp).toFixed(0)} ms (min ${Math.min(...imp).toFixed(0)}, max ${Math.max(...imp).toFixed(0)}), process ${median(samples.map((s) => s.processMs)).toFixed(0)} ms, rss ${median(samples.map((s) => s.rssMiB)).toFixed(0)} MiB`,
  );
}

console.log(`node ${process.version}, ${runs} cold processes per row`);
console.log(
  `bundle index.mjs: ${bundle.bytes} bytes, ${(bundle.bytes / 1024).toFixed(0)} KiB (budget ${BUNDLE_BUDGET_BYTES} bytes; gzip ${(zipped / 1024).toFixed(0)} KiB), source map ${(map / 1024).toFixed(0)} KiB, esbuild ${bundle.ms} ms`,
);
console.log(describeBiggest(bundle.metafile, 8));
measure('cold import', []);
measure('cold import, source maps', ['--enable-source-maps']);
