/**
 * What is in the handler bundle, from esbuild's metafile: the inputs and packages that weigh the
 * most, and packages bundled twice. Used by the bundle-size test (its failure message) and by
 * `npm run bench:handler`.
 */
import type { Metafile } from 'esbuild';
import { BUNDLE_FILE } from './bundle.js';

export interface InputSize {
  /** The input's path as esbuild reports it (relative to the repository). */
  path: string;
  /** Bytes it contributes to index.mjs (after minification). */
  bytes: number;
}

export interface PackageSize {
  /** npm package name, e.g. `@kubernetes/client-node`. */
  name: string;
  /** Where it is installed, e.g. `node_modules/@kubernetes/client-node`. */
  dir: string;
  bytes: number;
  files: number;
}

/** The inputs of index.mjs with the bytes each contributes, biggest first. */
export function inputsBySize(metafile: Metafile): InputSize[] {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(BUNDLE_FILE));
  if (!output) throw new Error(`the metafile has no ${BUNDLE_FILE} output`);
  return Object.entries(output[1].inputs)
    .map(([path, input]) => ({ path, bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** `node_modules/<name>` (innermost) of a path, or undefined for the repository's own files. */
function packageOf(path: string): { name: string; dir: string } | undefined {
  const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)/.exec(path.replaceAll('\\', '/'));
  if (!match) return undefined;
  const dir = `${match[1]}${match[2]}`;
  return { name: match[2]!, dir: dir.slice(dir.indexOf('node_modules/')) };
}

/** Bytes per installed package (the repository's own code under `(tenantplane)`), biggest first. */
export function packagesBySize(metafile: Metafile): PackageSize[] {
  const sizes = new Map<string, PackageSize>();
  for (const { path, bytes } of inputsBySize(metafile)) {
    const pkg = packageOf(path) ?? { name: '(tenantplane)', dir: '.' };
    const entry = sizes.get(pkg.dir) ?? { ...pkg, bytes: 0, files: 0 };
    entry.bytes += bytes;
    entry.files += 1;
    sizes.set(pkg.dir, entry);
  }
  return [...sizes.values()].sort((a, b) => b.bytes - a.bytes);
}

/** Packages bundled from more than one directory (two versions side by side), with their dirs. */
export function duplicatePackages(metafile: Metafile): Map<string, string[]> {
  const dirs = new Map<string, string[]>();
  for (const pkg of packagesBySize(metafile)) {
    if (pkg.bytes === 0) continue;
    dirs.set(pkg.name, [...(dirs.get(pkg.name) ?? []), pkg.dir]);
  }
  return new Map([...dirs].filter(([, list]) => list.length > 1));
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A few lines naming the biggest packages and input files, for a failure message or a report. */
export function describeBiggest(metafile: Metafile, count = 10): string {
  const packages = packagesBySize(metafile)
    .slice(0, count)
    .map((p) => `  ${kib(p.bytes).padStart(10)}  ${p.name} (${p.files} files, ${p.dir})`);
  const inputs = inputsBySize(metafile)
    .slice(0, count)
    .map((i) => `  ${kib(i.bytes).padStart(10)}  ${i.path}`);
  return [`biggest packages:`, ...packages, `biggest input files:`, ...inputs].join('\n');
}
