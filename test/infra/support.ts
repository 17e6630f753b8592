/** Helpers for the CDK assertion tests: configs, synthesis, and reading CloudFormation values. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { bundleSyncHandler } from '../../infra/bundle.js';
import { parseTenantsConfig, type TenantsConfig } from '../../infra/config.js';
import { addTenantplane, type Tenantplane } from '../../infra/stacks.js';

export const HOST_SECRET = 'tenantplane/host/kubeconfig';

export function tenantsYaml(tenants: string[], extraGlobal = ''): string {
  const entries = tenants.map((t) => `  - ${t}`).join('\n');
  return `global:\n  hostSecretId: ${HOST_SECRET}\n  eventBusName: tenantplane\n  logRetentionDays: 14\n${extraGlobal}tenants:\n${entries}\n`;
}

export function manyTenants(n: number): TenantsConfig {
  return parseTenantsConfig(
    tenantsYaml(
      Array.from(
        { length: n },
        (_, i) =>
          `{name: tenant-${i}, schedule: "rate(5 minutes)", tenantSecretId: "tenantplane/tenants/tenant-${i}"}`,
      ),
    ),
  );
}

/** The real handler bundle (built once per process), or a prebuilt one named by TENANTPLANE_PREBUILT_BUNDLE. */
export function handlerBundleDir(): string {
  return process.env.TENANTPLANE_PREBUILT_BUNDLE ?? bundleSyncHandler().dir;
}

export function synth(config: TenantsConfig, options: { bundleDir?: string } = {}) {
  const app = new App();
  const tp: Tenantplane = addTenantplane(app, {
    config,
    ...(options.bundleDir === undefined ? {} : { bundleDir: options.bundleDir }),
  });
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
