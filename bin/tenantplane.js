#!/usr/bin/env node
// The `tenantplane` command. It runs the built JavaScript of lib/cli (scripts/build-cli.mjs),
// never TypeScript at run time: loading the Kubernetes client through tsx alone took seconds.
// Before every run it checks the build against the sources (a few milliseconds) and rebuilds
// first when any changed, so the command is never stale.
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { checkCliBuild } from '../scripts/cli-stamp.mjs';

let main;
try {
  ({ main } = checkCliBuild());
  if (!main) {
    // Stale: only now load the build (scripts/build-cli.mjs, and esbuild through it).
    const { buildCli } = await import('../scripts/build-cli.mjs');
    ({ main } = await buildCli());
  }
} catch (error) {
  // One plain message (esbuild's diagnostics name file and line), exit 1 like any failure.
  process.stderr.write(`error: ${error?.name === 'CliBuildError' ? error.message : error}\n`);
  process.exit(1);
}
// V8's code cache for the bundle's chunks: later runs skip most of the compiling.
module.enableCompileCache?.();
await import(pathToFileURL(main).href);
