/**
 * CDK entry point (`cdk.json`: `npx tsx infra/app.ts`). Reads the tenants config (context
 * `tenantsConfig`, default config/tenants.yaml), bundles the sync handler once (infra/bundle.ts),
 * and adds the shared and tenant stacks; every function uses that one bundle.
 */
import { isAbsolute, join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { bundleSyncHandler, REPO_ROOT } from './bundle.js';
import { loadTenantsConfig } from './config.js';
import { addTenantplane } from './stacks.js';

const app = new App();
const configPath = String(app.node.tryGetContext('tenantsConfig') ?? 'config/tenants.yaml');
const config = loadTenantsConfig(isAbsolute(configPath) ? configPath : join(REPO_ROOT, configPath));
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const bundle = await bundleSyncHandler();

addTenantplane(app, {
  config,
  bundleDir: bundle.dir,
  ...(account && region ? { env: { account, region } } : {}),
});
app.synth();
