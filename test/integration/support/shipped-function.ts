/**
 * The sync function as the CDK app ships it, for running it locally: its handler, environment,
 * memory and timeout, and its schedule's input, read from the synthesized template of a
 * one-tenant app (infra/, with cdk.json's context) around a given bundle directory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { REPO_ROOT } from '../../../infra/bundle.js';
import { parseTenantsConfig } from '../../../infra/config.js';
import { addTenantplane } from '../../../infra/stacks.js';

export interface ShippedFunction {
  functionName: string;
  /** `index.handler`: module `index` of the bundle, export `handler`. */
  handler: string;
  runtime: string;
  environment: Record<string, string>;
  memoryMiB: number;
  timeoutSeconds: number;
  /** What EventBridge Scheduler sends the function on each tick. */
  scheduleInput: unknown;
}

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
}

export function shippedFunction(options: {
  tenant: string;
  tenantSecretId: string;
  hostSecretId: string;
  bundleDir: string;
  /** A followed tenant (`follow` and `budget.timeoutSeconds` in config/tenants.yaml). */
  follow?: { quietSeconds: number; timeoutSeconds: number };
  /** A woken tenant (`wake: {}`, docs/wake.md). */
  wake?: boolean;
}): ShippedFunction {
  const { follow } = options;
  const followed = `${
    follow
      ? `, schedule: "rate(1 minute)", follow: {quietSeconds: ${follow.quietSeconds}}, budget: {timeoutSeconds: ${follow.timeoutSeconds}}`
      : ', schedule: "rate(5 minutes)"'
  }${options.wake ? ', wake: {}' : ''}`;
  const config = parseTenantsConfig(
    [
      'tenants:',
      `  - {name: ${options.tenant}${followed}, tenantSecretId: ${JSON.stringify(options.tenantSecretId)}, hostSecretId: ${JSON.stringify(options.hostSecretId)}}`,
      '',
    ].join('\n'),
  );
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const { shards } = addTenantplane(new App({ context: cdkJson.context }), {
    config,
    bundleDir: options.bundleDir,
    // Only the tenant's function is read here: the wake stack's asset may be any directory.
    ...(options.wake ? { wakeBundleDir: options.bundleDir } : {}),
  });
  const resources = Object.values(
    Template.fromStack(shards[0]!).toJSON().Resources as Record<string, CfnResource>,
  );
  const fn = resources.find((r) => r.Type === 'AWS::Lambda::Function')!.Properties;
  const schedule = resources.find((r) => r.Type === 'AWS::Scheduler::Schedule')!.Properties;
  return {
    functionName: String(fn.FunctionName),
    handler: String(fn.Handler),
    runtime: String(fn.Runtime),
    environment: (fn.Environment as { Variables: Record<string, string> }).Variables,
    memoryMiB: Number(fn.MemorySize),
    timeoutSeconds: Number(fn.Timeout),
    scheduleInput: JSON.parse(String((schedule.Target as { Input: string }).Input)),
  };
}

/**
 * The wake function as the CDK app ships it (infra/wake-stack.ts), for woken tenants `tenants`
 * (each `{name, ...}` of config/tenants.yaml, `wake: {}` added): handler, environment, memory,
 * timeout, read from the synthesized wake stack.
 */
export function shippedWakeFunction(options: {
  tenants: string[];
  bundleDir: string;
  wakeBundleDir: string;
}): ShippedFunction {
  const config = parseTenantsConfig(
    [
      'tenants:',
      ...options.tenants.map(
        (name) =>
          `  - {name: ${name}, schedule: "rate(5 minutes)", tenantSecretId: tp/tenants/${name}, hostSecretId: tp/host/${name}, wake: {}}`,
      ),
      '',
    ].join('\n'),
  );
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const { wake } = addTenantplane(new App({ context: cdkJson.context }), {
    config,
    bundleDir: options.bundleDir,
    wakeBundleDir: options.wakeBundleDir,
  });
  if (!wake) throw new Error('no wake stack was synthesized');
  const resources = Object.values(
    Template.fromStack(wake).toJSON().Resources as Record<string, CfnResource>,
  );
  const fn = resources.find((r) => r.Type === 'AWS::Lambda::Function')!.Properties;
  return {
    functionName: String(fn.FunctionName),
    handler: String(fn.Handler),
    runtime: String(fn.Runtime),
    environment: (fn.Environment as { Variables: Record<string, string> }).Variables,
    memoryMiB: Number(fn.MemorySize),
    timeoutSeconds: Number(fn.Timeout),
    scheduleInput: undefined,
  };
}
