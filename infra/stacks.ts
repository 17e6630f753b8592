/**
 * The tenantplane CDK app: a shared stack (the `SyncRequested` bus, the alarm topic, the
 * dead-letter queue and the fleet dashboard) and the tenants packed, in config order, into stacks
 * `TenantplaneTenants-<n>` small enough that none comes near CloudFormation's 500-resource limit.
 * A `stage` prefixes every stack and resource name and tags everything `tenantplane:stage`.
 */
import { type App, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { TenantConfig, TenantsConfig } from './config.js';
import { isWoken } from './config-wake.js';
import { FleetDashboard } from './constructs/fleet-dashboard.js';
import { AlarmDelivery, alarmTopicName } from './constructs/shared-alarms.js';
import { TenantSyncFunction } from './constructs/tenant-sync-function.js';
import {
  deadLetterQueueNameFor,
  FLEET_DASHBOARD_NAME,
  functionStem,
  metricsNamespaceFor,
  stackNameFor,
  staged,
} from './names.js';
import { WAKE_STACK_NAME, WakeStack } from './wake-stack.js';

export const SHARED_STACK_NAME = 'TenantplaneShared';
export const TENANT_STACK_PREFIX = 'TenantplaneTenants-';

/** The tag of every resource of the app: its stage (`default` without one). */
export const STAGE_TAG = 'tenantplane:stage';

/**
 * CloudFormation resources per tenant, at most: log group, role (inline policy), function, async
 * invoke config, schedule, rule, rule -> function permission, 6 saved queries, 6 alarms (a
 * followed tenant has 4). A test synthesizes tenants and checks this number.
 */
export const RESOURCES_PER_TENANT = 19;
/** Per tenant stack, besides the tenants: the scheduler role, its policy, CDKMetadata. */
export const RESOURCES_PER_TENANT_STACK = 3;
/**
 * Our ceiling, under CloudFormation's 500. 350 until each tenant gained its heartbeat, dropped
 * events and throttles alarms; raised to keep 21 tenants per stack, so that no deployed tenant
 * moves to another stack (which would replace its function, log group and alarms).
 */
export const DEFAULT_MAX_RESOURCES_PER_STACK = 420;

export function tenantsPerStack(maxResources = DEFAULT_MAX_RESOURCES_PER_STACK): number {
  return Math.max(
    1,
    Math.floor((maxResources - RESOURCES_PER_TENANT_STACK) / RESOURCES_PER_TENANT),
  );
}

/** The bus name with the stage's prefix. */
export const eventBusNameOf = (config: TenantsConfig): string =>
  staged(config.global.eventBusName, config.global.stage);

export class SharedStack extends Stack {
  readonly eventBus: events.EventBus;
  readonly alarmTopic: sns.Topic | undefined;
  /** Every tick, trigger and asynchronous invocation of the app that could not be run. */
  readonly deadLetterQueue: sqs.Queue;
  /** The fleet dashboard: every tenant, from metrics, whatever stack its function is in. */
  readonly dashboard: FleetDashboard;

  constructor(scope: Construct, id: string, config: TenantsConfig, props?: StackProps) {
    super(scope, id, {
      description:
        'tenantplane: SyncRequested event bus, alarm topic, dead-letter queue and fleet dashboard',
      ...props,
    });
    const { stage } = config.global;
    this.eventBus = new events.EventBus(this, 'Bus', { eventBusName: eventBusNameOf(config) });
    const alarms = new AlarmDelivery(this, 'Alarms', {
      alarms: config.global.alarms,
      stage,
      eventBusName: eventBusNameOf(config),
      deadLetterQueueName: deadLetterQueueNameFor(stage),
    });
    this.alarmTopic = alarms.createdTopic;
    this.deadLetterQueue = alarms.deadLetterQueue;
    this.dashboard = new FleetDashboard(this, 'Fleet', {
      dashboardName: staged(FLEET_DASHBOARD_NAME, stage),
      scope: { namespace: metricsNamespaceFor(stage), functionStem: functionStem(stage) },
    });
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
    const eventBus = events.EventBus.fromEventBusName(this, 'Bus', eventBusNameOf(config));
    const { alarms, stage } = config.global;
    const created = alarmTopicName(alarms, stage);
    const topicArn =
      alarms.topicArn ??
      (created ? this.formatArn({ service: 'sns', resource: created }) : undefined);
    const alarmTopic = topicArn ? sns.Topic.fromTopicArn(this, 'AlarmTopic', topicArn) : undefined;
    const deadLetterQueue = sqs.Queue.fromQueueArn(
      this,
      'DeadLetters',
      this.formatArn({ service: 'sqs', resource: deadLetterQueueNameFor(stage) }),
    );
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
          deadLetterQueue,
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
  /** Directory of the wake function's bundle (`(await bundleWakeHandler()).dir`), when a tenant is woken. */
  wakeBundleDir?: string;
  maxResourcesPerStack?: number;
  env?: StackProps['env'];
}

export interface Tenantplane {
  shared: SharedStack;
  shards: TenantShardStack[];
  tenantsPerStack: number;
  /** The wake function and tokens (docs/wake.md), when a tenant is woken. */
  wake?: WakeStack;
}

/** Adds the shared stack and the tenant stacks to `app`. */
export function addTenantplane(app: App, options: TenantplaneOptions): Tenantplane {
  const env = options.env ? { env: options.env } : {};
  const { stage } = options.config.global;
  const shared = new SharedStack(app, stackNameFor(SHARED_STACK_NAME, stage), options.config, env);
  Tags.of(shared).add(STAGE_TAG, stage ?? 'default');
  const perStack = tenantsPerStack(options.maxResourcesPerStack);
  const shards: TenantShardStack[] = [];
  const tenants = options.config.tenants;
  for (let start = 0, n = 1; start < tenants.length; start += perStack, n++) {
    const stack = new TenantShardStack(app, stackNameFor(`${TENANT_STACK_PREFIX}${n}`, stage), {
      ...env,
      description: `tenantplane: sync functions of tenants ${start + 1}-${Math.min(start + perStack, tenants.length)} of config/tenants.yaml`,
      config: options.config,
      tenants: tenants.slice(start, start + perStack),
      bundleDir: options.bundleDir,
    });
    stack.addStackDependency(shared);
    Tags.of(stack).add(STAGE_TAG, stage ?? 'default');
    shards.push(stack);
  }
  if (!tenants.some(isWoken)) return { shared, shards, tenantsPerStack: perStack };
  if (options.wakeBundleDir === undefined)
    throw new Error('a woken tenant needs the wake function bundle (wakeBundleDir)');
  const wake = new WakeStack(app, stackNameFor(WAKE_STACK_NAME, stage), {
    ...env,
    config: options.config,
    bundleDir: options.wakeBundleDir,
  });
  Tags.of(wake).add(STAGE_TAG, stage ?? 'default');
  return { shared, shards, tenantsPerStack: perStack, wake };
}
