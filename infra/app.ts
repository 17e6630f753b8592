/**
 * CDK entry point (`cdk.json`: `npx tsx infra/app.ts`). Reads the tenants config (context
 * `tenantsConfig`, default config/tenants.yaml), bundles the sync handler once (infra/bundle.ts),
 * and adds the shared and tenant stacks; every function uses that one bundle. With a woken
 * tenant, it bundles the wake function too and adds the wake stack (infra/wake-stack.ts).
 */
import { isAbsolute, join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { bundleSyncHandler, bundleWakeHandler, REPO_ROOT } from './bundle.js';
import { type TenantsConfig, TenantsConfigError } from './config.js';
import { loadTenantsConfig } from './config-file.js';
import { isWoken } from './config-wake.js';
import { addTenantplane } from './stacks.js';

/**
 * The config, or exit 1 with one message listing its problems: a config mistake is the
 * operator's to fix, and an uncaught exception's stack only hid the list.
 */
function loadConfigOrExit(path: string): TenantsConfig {
  try {
    return loadTenantsConfig(path);
  } catch (error) {
    if (!(error instanceof TenantsConfigError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
}

const app = new App();
const configPath = String(app.node.tryGetContext('tenantsConfig') ?? 'config/tenants.yaml');
const config = loadConfigOrExit(isAbsolute(configPath) ? configPath : join(REPO_ROOT, configPath));
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const bundle = await bundleSyncHandler();
// The wake function's bundle only when a tenant is woken (docs/wake.md).
const wakeBundle = config.tenants.some(isWoken) ? await bundleWakeHandler() : undefined;

addTenantplane(app, {
  config,
  bundleDir: bundle.dir,
  ...(wakeBundle ? { wakeBundleDir: wakeBundle.dir } : {}),
  ...(account && region ? { env: { account, region } } : {}),
});
app.synth();
