/**
 * Bundles the whole `tenantplane` command (lib/cli/main.ts) into ONE file for a stock Node.js 24
 * image: `npm run build:cli-bundle` writes .tenantplane/cli-bundle/tenantplane.mjs and its gzip,
 * tenantplane.mjs.gz, which deploy/follow/ mounts from a ConfigMap (see its README) to run
 * `tenantplane sync <tenant> --follow` as a Deployment. The built command of bin/tenantplane.js
 * is code-split into many files, which a ConfigMap key cannot hold; this one is not
 * (scripts/configmap-bundle.mjs).
 *
 *   node scripts/build-cli-bundle.mjs [--outdir <dir>]
 */
import { buildConfigMapBundle } from './configmap-bundle.mjs';

await buildConfigMapBundle({
  entry: 'lib/cli/main.ts',
  name: 'tenantplane',
  defaultDir: 'cli-bundle',
});
