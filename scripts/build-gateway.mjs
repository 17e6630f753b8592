/**
 * Bundles the kubelet gateway (lib/gateway, run by lib/cli/gateway-main.ts) into ONE file for a
 * stock Node.js 24 image: `npm run build:gateway` writes .tenantplane/gateway/gateway.mjs and
 * its gzip, gateway.mjs.gz, which deploy/gateway/ mounts from a ConfigMap (see its README;
 * scripts/configmap-bundle.mjs).
 *
 *   node scripts/build-gateway.mjs [--outdir <dir>]
 */
import { buildConfigMapBundle } from './configmap-bundle.mjs';

await buildConfigMapBundle({
  entry: 'lib/cli/gateway-main.ts',
  name: 'gateway',
  defaultDir: 'gateway',
});
