/**
 * The app as `cdk synth` runs it: infra/app.ts over config/tenants.yaml with cdk.json's context,
 * one shared asset, and that asset is byte for byte the bundle the other tests measure.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  BUNDLE_BUDGET_BYTES,
  BUNDLE_FILE,
  bundleSyncHandler,
  REPO_ROOT,
} from '../../infra/bundle.js';
import { FLEET_DASHBOARD_NAME } from '../../infra/names.js';
import { cdkContext, PRODUCTION_YAML } from './support.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

const read = (outdir: string, file: string) =>
  JSON.parse(readFileSync(join(outdir, file), 'utf8')) as CfnTemplate;

describe('the CDK app', () => {
  it('synthesizes config/tenants.yaml through infra/app.ts with one shared asset', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tenantplane-synth-'));
    outdirs.push(outdir);
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['infra/app.ts'], {
      cwd: REPO_ROOT,
      // What the CDK CLI hands the app: the output directory and cdk.json's context.
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify(cdkContext()),
        CDK_DISABLE_VERSION_CHECK: '1',
      },
      stdio: 'pipe',
    });
    const files = readdirSync(outdir);
    expect(files).toEqual(
      expect.arrayContaining([
        'TenantplaneShared.template.json',
        'TenantplaneTenants-1.template.json',
      ]),
    );
    const tenants = read(outdir, 'TenantplaneTenants-1.template.json');
    const functions = Object.values(tenants.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(functions.map((f) => f.Properties!.FunctionName).sort()).toEqual([
      'tenantplane-sync-dev',
      'tenantplane-sync-prod',
      'tenantplane-sync-staging',
    ]);
    const dashboards = Object.values(read(outdir, 'TenantplaneShared.template.json').Resources)
      .filter((r) => r.Type === 'AWS::CloudWatch::Dashboard')
      .map((r) => r.Properties!.DashboardName);
    expect(dashboards).toEqual([FLEET_DASHBOARD_NAME]);

    const assets = files.filter((f) => f.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    expect(readdirSync(join(outdir, assets[0]!)).sort()).toEqual([
      BUNDLE_FILE,
      `${BUNDLE_FILE}.map`,
    ]);
    const shipped = readFileSync(join(outdir, assets[0]!, BUNDLE_FILE));
    expect(
      shipped
        .toString('utf8', 0, 80)
        .startsWith("import { createRequire as __tpCreateRequire } from 'node:module';"),
    ).toBe(true);
    expect(shipped.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    // The bundle the size test measures and the integration test runs is the one that ships:
    // built again now, from the same sources, it is the same bytes.
    const again = mkdtempSync(join(tmpdir(), 'tenantplane-bundle-'));
    outdirs.push(again);
    expect(shipped.equals(readFileSync((await bundleSyncHandler(again)).file))).toBe(true);
  });
  it('synthesizes a production config (stage, VPC, e-mails) named by -c tenantsConfig', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tenantplane-synth-'));
    outdirs.push(outdir);
    const configFile = join(outdir, 'prod.yaml');
    writeFileSync(configFile, PRODUCTION_YAML);
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['infra/app.ts'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({ ...cdkContext(), tenantsConfig: configFile }),
        CDK_DISABLE_VERSION_CHECK: '1',
      },
      stdio: 'pipe',
    });
    const shared = read(outdir, 'prod-TenantplaneShared.template.json');
    const tenants = read(outdir, 'prod-TenantplaneTenants-1.template.json');
    const ofType = (t: CfnTemplate, type: string) =>
      Object.values(t.Resources).filter((r) => r.Type === type);
    expect(ofType(tenants, 'AWS::Lambda::Function').map((f) => f.Properties!.VpcConfig)).toEqual([
      expect.objectContaining({ SubnetIds: expect.any(Array) }),
      expect.objectContaining({ SubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'] }),
      expect.objectContaining({ SubnetIds: expect.any(Array) }),
    ]);
    expect(ofType(shared, 'AWS::SNS::Subscription')).toHaveLength(2);
    expect(ofType(shared, 'AWS::SQS::Queue').map((q) => q.Properties!.QueueName)).toEqual([
      'prod-tenantplane-dead-letters',
    ]);
    const heartbeats = ofType(tenants, 'AWS::CloudWatch::Alarm').filter((a) =>
      String(a.Properties!.AlarmName).endsWith('-heartbeat'),
    );
    expect(heartbeats.map((a) => a.Properties!.TreatMissingData)).toEqual([
      'breaching',
      'breaching',
      'breaching',
    ]);
  });
});
