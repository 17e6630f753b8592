/**
 * The tenantplane CDK app: a shared stack (the `SyncRequested` bus, the alarm topic and the fleet
 * dashboard) and the tenants packed, in config order, into stacks `TenantplaneTenants-<n>` small
 * enough that none comes near CloudFormation's 500-resource limit.
 */
import { type App, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { TenantConfig, TenantsConfig } from './config.js';
import { FleetDashboard } from './constructs/fleet-dashboard.js';
import { TenantSyncFunction } from './constructs/tenant-sync-function.js';

export const SHARED_STACK_NAME = 'TenantplaneShared';
export const TENANT_STACK_PREFIX = 'TenantplaneTenants-';

/**
 * CloudFormation resources per tenant: log group, role (inline policy), function, async invoke
 * config, schedule, rule, rule -> function permission, 6 saved queries, 3 alarms. A test
 * synthesizes a tenant and checks this number.
 */
export const RESOURCES_PER_TENANT = 16;
/** Per tenant stack, besides the tenants: the scheduler role, its policy, CDKMetadata. */
export const RESOURCES_PER_TENANT_STACK = 3;
/** Our ceiling, well under CloudFormation's 500 (room for later additions per tenant). */
export const DEFAULT_MAX_RESOURCES_PER_STACK = 350;

export function tenantsPerStack(maxResources = DEFAULT_MAX_RESOURCES_PER_STACK): number {
  return Math.max(
    1,
    Math.floor((maxResources - RESOURCES_PER_TENANT_STACK) / RESOURCES_PER_TENANT),
  );
}

export class SharedStack extends Stack {
  readonly eventBus: events.EventBus;
  readonly alarmTopic: sns.Topic | undefined;
  /** The fleet dashboard: every tenant, from metrics, whatever stack its function is in. */
  readonly dashboard: FleetDashboard;

  constructor(scope: Construct, id: string, config: TenantsConfig, props?: StackProps) {
    super(scope, id, {
      description: 'tenantplane: SyncRequested event bus, alarm topic and fleet dashboard',
      ...props,
    });
    this.eventBus = new events.EventBus(this, 'Bus', { eventBusName: config.global.eventBusName });
    const topicName = config.global.alarms.topicName;
    this.alarmTopic = topicName
      ? new sns.Topic(this, 'AlarmTopic', { topicName, displayName: 'tenantplane alarms' })
      : undefined;
    this.dashboard = new FleetDashboard(this, 'Fleet');
  }
}

export interface TenantShardStackProps extends StackProps {
  config: TenantsConfig;
  tenants: TenantConfig[];
  /** Directory of the handler bundle (see infra/bundle.ts), shared by every function. */
  bundleDir: string;
}

export class TenantShardStack extends Stack {
  readonly tenants: Map<string, TenantSyncFunction> = new Map();

  constructor(scope: Construct, id: string, props: TenantShardStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Referenced by name/ARN, not by cross-stack export, so the shared stack never blocks on
    // the tenant stacks' imports.
    const eventBus = events.EventBus.fromEventBusName(this, 'Bus', config.global.eventBusName);
    const topicArn =
      config.global.alarms.topicArn ??
      (config.global.alarms.topicName
        ? this.formatArn({ service: 'sns', resource: config.global.alarms.topicName })
        : undefined);
    const alarmTopic = topicArn ? sns.Topic.fromTopicArn(this, 'AlarmTopic', topicArn) : undefined;
    const scheduleRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
      description: 'EventBridge Scheduler invokes the tenantplane sync functions of this stack',
    });
    // One Code per stack (an asset belongs to one stack); same directory, so one S3 object.
    const code = lambda.Code.fromAsset(props.bundleDir);
    for (const tenant of props.tenants) {
      this.tenants.set(
        tenant.name,
        new TenantSyncFunction(this, `Tenant-${tenant.name}`, {
          tenant,
          global: config.global,
          eventBus,
          scheduleRole,
          ...(alarmTopic ? { alarmTopic } : {}),
          code,
        }),
      );
    }
  }
}

export interface TenantplaneOptions {
  config: TenantsConfig;
  /** Directory of the handler bundle shared by every function (`(await bundleSyncHandler()).dir`). */
  bundleDir: string;
  maxResourcesPerStack?: number;
  env?: StackProps['env'];
}

export interface Tenantplane {
  shared: SharedStack;
  shards: TenantShardStack[];
  tenantsPerStack: number;
}

/** Adds the shared stack and the tenant stacks to `app`. */
export function addTenantplane(app: App, options: TenantplaneOptions): Tenantplane {
  const env = options.env ? { env: options.env } : {};
  const shared = new SharedStack(app, SHARED_STACK_NAME, options.config, env);
  const perStack = tenantsPerStack(options.maxResourcesPerStack);
  const shards: TenantShardStack[] = [];
  const tenants = options.config.tenants;
  for (let start = 0, n = 1; start < tenants.length; start += perStack, n++) {
    const stack = new TenantShardStack(app, `${TENANT_STACK_PREFIX}${n}`, {
      ...env,
      description: `tenantplane: sync functions of tenants ${start + 1}-${Math.min(start + perStack, tenants.length)} of config/tenants.yaml`,
      config: options.config,
      tenants: tenants.slice(start, start + perStack),
      bundleDir: options.bundleDir,
    });
    stack.addStackDependency(shared);
    shards.push(stack);
  }
  return { shared, shards, tenantsPerStack: perStack };
}
