/**
 * esbuild plugins that keep the handler bundle to the code that can run in the function. Each one
 * names exactly what it leaves out and why; `test/infra/bundle.test.ts` checks the result.
 */
import { statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { Plugin } from 'esbuild';

/** `/node_modules/<name>/`, with the platform's separator, to recognize a package's files. */
function packageDir(name: string): string {
  return `${sep}node_modules${sep}${name.split('/').join(sep)}${sep}`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Treats every module of `packages` as free of side effects (what `"sideEffects": false` in their
 * package.json would say), so esbuild drops the modules whose exports the handler never uses.
 *
 * For `@kubernetes/client-node` this is what makes its `index.js` cheap: it re-exports `exec`,
 * `attach`, `portforward`, `cp`, the informers and ~2,700 generated API models and clients, and
 * imports a polyfill for `globalThis.File`, which Node 24 has. The handler uses `KubeConfig` and
 * the generated `Configuration` plumbing only.
 */
export function sideEffectFree(packages: readonly string[]): Plugin {
  const dirs = packages.map(packageDir);
  const inside = (path: string) => dirs.some((dir) => path.includes(dir));
  const bare = new RegExp(`^(${packages.map(escapeRegExp).join('|')})(/|$)`);
  const guard = 'tenantplane:side-effect-free';
  return {
    name: guard,
    setup(build) {
      // The packages themselves, as other code imports them: esbuild resolves, we mark.
      build.onResolve({ filter: bare }, async (args) => {
        if (args.pluginData === guard) return undefined;
        const { pluginData: _, ...resolved } = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: guard,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        return inside(resolved.path) ? { ...resolved, sideEffects: false } : resolved;
      });
      // Their own relative imports (the re-export chains of their barrels). Resolved here, not by
      // esbuild: these are ESM files with full paths (`./gen/index.js`), and a round trip per
      // import through build.resolve makes the whole build several times slower.
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (!inside(args.importer)) return undefined;
        const path = resolve(args.resolveDir, args.path);
        return isFile(path) ? { path, sideEffects: false } : undefined;
      });
    },
  };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface OmittedModule {
  /** The package whose file imports it. */
  package: string;
  /** The import path as written in that package, e.g. `../milo/simd.js`. */
  path: string;
  /** Why it can never load in the function; part of the error if it is loaded anyway. */
  why: string;
}

/**
 * undici's HTTP/1 response parsers that never load on Lambda's arm64 (or x86_64) Node 24: the
 * experimental Milo parser (both builds; only with `UNDICI_USE_MILO`) and llhttp without WebAssembly
 * SIMD (only where SIMD is unavailable, or with `UNDICI_NO_WASM_SIMD=1`). Each is a ~70 KiB
 * base64 WebAssembly module. The SIMD llhttp, the one that runs, stays.
 */
export const UNDICI_UNUSED_PARSERS: readonly OmittedModule[] = [
  {
    package: 'undici',
    path: '../milo/simd.js',
    why: 'the Milo parser loads only with UNDICI_USE_MILO',
  },
  {
    package: 'undici',
    path: '../milo/no-simd.js',
    why: 'the Milo parser loads only with UNDICI_USE_MILO',
  },
  {
    package: 'undici',
    path: '../llhttp/llhttp-wasm.js',
    why: 'llhttp without WebAssembly SIMD loads only where SIMD is unavailable or UNDICI_NO_WASM_SIMD=1 (and eagerly under jest workers)',
  },
];

/**
 * Replaces `modules` with a module that throws, naming the module and the reason, if it is ever
 * loaded: a missing piece fails loudly instead of misbehaving.
 */
export function omitModules(modules: readonly OmittedModule[]): Plugin {
  const namespace = 'tenantplane-omitted';
  const filter = new RegExp(`^(${modules.map((m) => escapeRegExp(m.path)).join('|')})$`);
  return {
    name: 'tenantplane:omit-modules',
    setup(build) {
      build.onResolve({ filter }, (args) => {
        const omitted = modules.find(
          (m) => m.path === args.path && args.importer.includes(packageDir(m.package)),
        );
        return omitted
          ? { path: `${omitted.package}:${omitted.path}`, namespace, pluginData: omitted }
          : undefined;
      });
      build.onLoad({ filter: /.*/, namespace }, (args) => {
        const omitted = args.pluginData as OmittedModule;
        const message = `${omitted.package} ${omitted.path} is not in the tenantplane handler bundle: ${omitted.why} (see infra/bundle-plugins.ts)`;
        return { contents: `throw new Error(${JSON.stringify(message)});`, loader: 'js' };
      });
    },
  };
}
