/**
 * The app as `cdk synth` runs it (infra/app.ts over config/tenants.yaml, one shared bundle), and
 * the per-function NodejsFunction mode, both bundling locally with esbuild (no Docker).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig } from '../../infra/config.js';
import { synth, tenantsYaml } from './support.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

describe('the CDK app', () => {
  it('synthesizes config/tenants.yaml through infra/app.ts with one shared asset', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'tenantplane-synth-'));
    outdirs.push(outdir);
    execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['infra/app.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, CDK_OUTDIR: outdir, CDK_DISABLE_VERSION_CHECK: '1' },
      stdio: 'pipe',
    });
    const files = readdirSync(outdir);
    expect(files).toEqual(
      expect.arrayContaining([
        'TenantplaneShared.template.json',
        'TenantplaneTenants-1.template.json',
      ]),
    );
    const template = JSON.parse(
      readFileSync(join(outdir, 'TenantplaneTenants-1.template.json'), 'utf8'),
    ) as CfnTemplate;
    const functions = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(functions.map((f) => f.Properties!.FunctionName).sort()).toEqual([
      'tenantplane-sync-dev',
      'tenantplane-sync-staging',
    ]);
    const assets = files.filter((f) => f.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    const bundle = readFileSync(join(outdir, assets[0]!, 'index.mjs'), 'utf8');
    expect(
      bundle.startsWith("import { createRequire as __tpCreateRequire } from 'node:module';"),
    ).toBe(true);
    expect(existsSync(join(outdir, assets[0]!, 'index.mjs.map'))).toBe(true);
  });

  it('can let each function bundle itself (NodejsFunction, local esbuild, ESM, minified)', () => {
    const config = parseTenantsConfig(
      tenantsYaml(['{name: solo, schedule: "rate(10 minutes)", tenantSecretId: tp/solo}']),
    );
    const { app, tp } = synth(config);
    const assembly = app.synth();
    const template = Template.fromStack(tp.shards[0]!);
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-solo',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
    });
    const assetDirs = readdirSync(assembly.directory).filter((f) => f.startsWith('asset.'));
    expect(assetDirs).toHaveLength(1);
    const dir = join(assembly.directory, assetDirs[0]!);
    const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(bundle).toContain('__tpCreateRequire');
    // Minified: long lines (newlines survive only inside template literals), not a readable module.
    expect(bundle.length / bundle.split('\n').length).toBeGreaterThan(2000);
    expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
  });
});
