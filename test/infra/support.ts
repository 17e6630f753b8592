/** Helpers for the CDK assertion tests: configs, synthesis, and reading CloudFormation values. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { bundleSyncHandler, bundleWakeHandler, REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig, type TenantsConfig } from '../../infra/config.js';
import { addTenantplane, type Tenantplane } from '../../infra/stacks.js';

/** The host secret of tenant `name` in these tests: each tenant has its own. */
export const hostSecretOf = (name: string) => `tenantplane/host/${name}/kubeconfig`;

export function tenantsYaml(tenants: string[], extraGlobal = ''): string {
  const entries = tenants.map((t) => `  - ${t}`).join('\n');
  return `global:\n  eventBusName: tenantplane\n  logRetentionDays: 14\n${extraGlobal}tenants:\n${entries}\n`;
}

export function manyTenants(n: number): TenantsConfig {
  return parseTenantsConfig(
    tenantsYaml(
      Array.from(
        { length: n },
        (_, i) =>
          `{name: tenant-${i}, schedule: "rate(5 minutes)", tenantSecretId: "tenantplane/tenants/tenant-${i}", hostSecretId: "${hostSecretOf(`tenant-${i}`)}"}`,
      ),
    ),
  );
}

let bundleDir: Promise<string> | undefined;

/**
 * The real handler bundle, built once per test process into a directory of its own (jest runs
 * test files in parallel processes), or a prebuilt one named by TENANTPLANE_PREBUILT_BUNDLE.
 */
export function handlerBundleDir(): Promise<string> {
  const prebuilt = process.env.TENANTPLANE_PREBUILT_BUNDLE;
  if (prebuilt) return Promise.resolve(prebuilt);
  if (!bundleDir) {
    const dir = mkdtempSync(join(tmpdir(), 'tenantplane-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    bundleDir = bundleSyncHandler(dir).then((b) => b.dir);
  }
  return bundleDir;
}

let wakeDir: Promise<string> | undefined;

/** The real wake function bundle (docs/wake.md), built once per test process. */
export function wakeBundleDir(): Promise<string> {
  if (!wakeDir) {
    const dir = mkdtempSync(join(tmpdir(), 'tenantplane-wake-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    wakeDir = bundleWakeHandler(dir).then((b) => b.dir);
  }
  return wakeDir;
}

/** The context of cdk.json (the feature flags), which `cdk synth` gives the app and so do tests. */
export function cdkContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export function synth(
  config: TenantsConfig,
  options: { bundleDir: string; wakeBundleDir?: string },
) {
  const app = new App({ context: cdkContext() });
  const tp: Tenantplane = addTenantplane(app, { config, ...options });
  return { app, tp, template: (stack: import('aws-cdk-lib').Stack) => Template.fromStack(stack) };
}

type Cfn = unknown;

/**
 * Renders a CloudFormation value to a string: Fn::Join is joined, a Ref becomes `${Name}`, a
 * GetAtt `${Logical.Attr}`. Enough to compare ARNs.
 */
export function render(value: Cfn): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    if ('Ref' in o) return `\${${String(o.Ref)}}`;
    if ('Fn::GetAtt' in o) return `\${${(o['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Join' in o) {
      const [sep, parts] = o['Fn::Join'] as [string, Cfn[]];
      return parts.map(render).join(sep);
    }
  }
  return JSON.stringify(value);
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: Cfn | Cfn[];
  Sid?: string;
}

export const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/**
 * Two tenants with every option the config has: budgets, full secret ARNs, alarms and a topic;
 * each with its own host secret.
 */
export const TWO_TENANTS_YAML = tenantsYaml(
  [
    `{name: dev, schedule: "rate(5 minutes)", tenantSecretId: tenantplane/tenants/dev/kubeconfig, hostSecretId: ${hostSecretOf('dev')}, memoryMiB: 1024, budget: {maxWrites: 500, pageSize: 250, concurrency: 8, timeoutSeconds: 300}}`,
    '{name: staging, schedule: "cron(0/10 * * * ? *)", tenantSecretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:staging-kc-AbCdEf", hostSecretId: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:staging-host-kc-GhIjKl"}',
  ],
  '  alarms: {periodMinutes: 10, evaluationPeriods: 2, failedInvocationsThreshold: 1, incompletePassesThreshold: 4, skipsThreshold: 2, topicName: tp-alarms}\n',
);

/** The logical id of the one resource of `type` whose properties include `props`. */
export function logicalIdOf(
  template: Template,
  type: string,
  props: Record<string, unknown>,
): string {
  const found = Object.keys(template.findResources(type, { Properties: Match.objectLike(props) }));
  if (found.length !== 1)
    throw new Error(`expected one ${type} like ${JSON.stringify(props)}, found ${found.length}`);
  return found[0]!;
}

/** One finding of a policy validation plugin (cdk-nag): its rule and where. */
export interface Finding {
  rule: string;
  path: string;
}

/**
 * Synthesizes the app under cdk-nag's AwsSolutions pack and returns every finding nothing
 * acknowledged (an empty list when it is silent), and every acknowledgment with its reason.
 */
export function nagFindings(
  config: TenantsConfig,
  options: { bundleDir: string; wakeBundleDir?: string; extra?: (app: App) => void },
): { findings: Finding[]; acknowledged: { path: string; id: string; reason: string }[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'tenantplane-nag-'));
  try {
    const app = new App({ context: cdkContext(), outdir });
    const { extra, ...bundles } = options;
    addTenantplane(app, { config, ...bundles });
    extra?.(app);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    try {
      app.synth();
    } catch (error) {
      // A finding fails the synthesis; the report says which.
      if (!existsSync(join(outdir, 'validation-report.json'))) throw error;
    }
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as {
      pluginReports: {
        violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
      }[];
    };
    const findings = report.pluginReports.flatMap((r) =>
      r.violations.flatMap((v) =>
        v.violatingConstructs.map((c) => ({ rule: v.ruleName, path: c.constructPath })),
      ),
    );
    const acknowledged = app.node.findAll().flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) =>
          Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
            path: c.node.path,
            id,
            reason,
          })),
        ),
    );
    return { findings, acknowledged };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * A config for a real account, every production setting on: a stage, a VPC (one tenant with its
 * own), a KMS key, a log level and alarm e-mails; tenants unfollowed, on a cron, and followed.
 */
export const PRODUCTION_YAML = `global:
  stage: prod
  logLevel: WARN
  kmsKeyArn: arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab
  vpc:
    subnetIds: [subnet-0123456789abcdef0, subnet-0fedcba9876543210]
    securityGroupIds: [sg-0123456789abcdef0]
  alarms:
    emails: [oncall@example.com, platform@example.com]
tenants:
  - {name: dev, schedule: rate(5 minutes), tenantSecretId: t/dev, hostSecretId: h/dev}
  - {name: edge, schedule: "cron(0/10 * * * ? *)", tenantSecretId: t/edge, hostSecretId: h/edge, vpc: {subnetIds: [subnet-0aaaaaaaaaaaaaaaa], securityGroupIds: [sg-0bbbbbbbbbbbbbbbb]}}
  - {name: prod, schedule: rate(1 minute), tenantSecretId: t/prod, hostSecretId: h/prod, follow: {quietSeconds: 30}}
`;
