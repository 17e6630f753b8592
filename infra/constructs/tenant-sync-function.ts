/**
 * Everything one tenant cluster needs to be synced: the function (one bounded pass per
 * invocation; for a followed tenant, a follow after a pass that found it active), its log group,
 * its schedule (spread over a flexible window), its manual-trigger rule, read access to exactly
 * its two kubeconfig secrets (its tenant cluster's and its own host identity's), saved log
 * queries and alarms; in a VPC when the config says so; every event it could not run ends in the
 * app's dead-letter queue.
 */
import { type CfnElement, Duration, Stack, Tags, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SERVICE_NAME, SYNC_REQUESTED, SyncEnv } from '../../functions/sync/contract.js';
import { BUNDLE_HANDLER } from '../bundle.js';
import type { GlobalConfig, TenantConfig } from '../config.js';
import { isWoken } from '../config-wake.js';
import {
  functionTimeoutSeconds,
  heartbeatOf,
  kmsKeyOf,
  RESERVED_CONCURRENCY_PER_TENANT,
  vpcOf,
  windowOf,
} from '../fleet-rules.js';
import { functionNameFor, logGroupNameFor, metricsNamespaceFor, queryNameFor } from '../names.js';
import { tenantQueries } from '../queries.js';
import { tenantAlarms } from './tenant-alarms.js';
import { tenantRole } from './tenant-role.js';

export { DEFAULT_TIMEOUT_SECONDS } from '../fleet-rules.js';
export { secretResourceArn } from './tenant-role.js';

import {
  clusterAccessEnvironment,
  EksAccessEntries,
  eksPolicyStatements,
  kubeconfigSecretIds,
} from './eks-access.js';

export const DEFAULT_MEMORY_MIB = 512;
/** The tag every resource of a tenant carries: its name (per-tenant cost allocation). */
export const TENANT_TAG = 'tenantplane:tenant';
/** How often, and for how long, EventBridge Scheduler retries a tick it could not deliver. */
export const SCHEDULE_RETRY_ATTEMPTS = 2;
export const SCHEDULE_MAX_EVENT_AGE_SECONDS = 60;
/** The shortest maximum event age Lambda accepts for asynchronous invocations. */
export const MIN_MAX_EVENT_AGE_SECONDS = 60;

/** `nodejs24.x`, also on an aws-cdk-lib that predates the constant. */
export const NODEJS_24: lambda.Runtime =
  (lambda.Runtime as { NODEJS_24_X?: lambda.Runtime }).NODEJS_24_X ??
  new lambda.Runtime('nodejs24.x', lambda.RuntimeFamily.NODEJS, { supportsInlineCode: true });

export interface TenantSyncFunctionProps {
  tenant: TenantConfig;
  global: GlobalConfig;
  /** The custom bus `SyncRequested` events arrive on. */
  eventBus: events.IEventBus;
  /** The role EventBridge Scheduler assumes to invoke the function (one per stack). */
  scheduleRole: iam.IRole;
  /** Alarm action target. */
  alarmTopic?: sns.ITopic;
  /** The app's dead-letter queue (shared stack): undeliverable ticks, triggers, failed events. */
  deadLetterQueue: sqs.IQueue;
  /**
   * The handler code: the bundle built once for the whole app (`lambda.Code.fromAsset` of
   * `bundleSyncHandler().dir`, see infra/bundle.ts), shared by every function of a stack.
   */
  code: lambda.Code;
}

export class TenantSyncFunction extends Construct {
  readonly function: lambda.Function;
  readonly logGroup: logs.LogGroup;
  readonly schedule: scheduler.Schedule;
  readonly rule: events.Rule;
  readonly alarms: cloudwatch.Alarm[];
  readonly queries: logs.CfnQueryDefinition[];

  constructor(scope: Construct, id: string, props: TenantSyncFunctionProps) {
    super(scope, id);
    const { tenant, global } = props;
    const stage = global.stage;
    const timeoutSeconds = functionTimeoutSeconds(tenant);
    const vpc = vpcOf(tenant, global);
    // A followed tenant's ticks are dropped by design while it follows (see maxEventAge below):
    // sent to the dead-letter queue they would bury the events that mean something.
    // A woken tenant is followed when woken: its ticks and wakes meet a running follow the same way.
    const followed = tenant.follow !== undefined || isWoken(tenant);
    const onFailure = followed ? undefined : props.deadLetterQueue.queueArn;
    Tags.of(this).add(TENANT_TAG, tenant.name);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: logGroupNameFor(tenant.name, stage),
      retention: global.logRetentionDays as logs.RetentionDays,
    });

    // The host secret is this tenant's own (config validation refuses a shared one), so no
    // function can read the host identity of another tenant; a cluster on EKS has no secret:
    // the function signs its own token.
    const role = tenantRole(this, 'Role', {
      tenant: tenant.name,
      secretIds: kubeconfigSecretIds(tenant),
      extraStatements: eksPolicyStatements(this, tenant),
      logGroup: this.logGroup,
      kmsKeyArn: kmsKeyOf(tenant, global),
      deadLetterQueueArn: onFailure,
      inVpc: vpc !== undefined,
    });

    const namespace = metricsNamespaceFor(stage);
    const environment: Record<string, string> = {
      [SyncEnv.Tenant]: tenant.name,
      ...clusterAccessEnvironment(tenant),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: namespace,
    };
    if (global.logLevel) environment.POWERTOOLS_LOG_LEVEL = global.logLevel;
    const budget = tenant.budget ?? {};
    if (budget.maxWrites !== undefined) environment[SyncEnv.MaxWrites] = String(budget.maxWrites);
    if (budget.pageSize !== undefined) environment[SyncEnv.PageSize] = String(budget.pageSize);
    if (budget.concurrency !== undefined)
      environment[SyncEnv.Concurrency] = String(budget.concurrency);
    if (tenant.follow) environment[SyncEnv.FollowQuietSeconds] = String(tenant.follow.quietSeconds);

    const common = {
      functionName: functionNameFor(tenant.name, stage),
      description: followed
        ? `tenantplane: a sync pass of tenant cluster ${tenant.name}, followed while it is active`
        : `tenantplane: one bounded sync pass of tenant cluster ${tenant.name}`,
      runtime: NODEJS_24,
      architecture: lambda.Architecture.ARM_64,
      memorySize: tenant.memoryMiB ?? DEFAULT_MEMORY_MIB,
      timeout: Duration.seconds(timeoutSeconds),
      role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment,
      // Passes of one tenant never overlap.
      reservedConcurrentExecutions: RESERVED_CONCURRENCY_PER_TENANT,
      // No automatic retry: the next schedule is the retry. A scheduled event queued behind a
      // running pass (concurrency 1) expires rather than pile up. A followed tenant's tick that
      // arrives while an invocation follows it is dropped after the shortest age Lambda allows
      // (60 s): the follow converges it already, and the next tick starts a new one if needed.
      retryAttempts: 0,
      maxEventAge: Duration.seconds(
        followed
          ? MIN_MAX_EVENT_AGE_SECONDS
          : Math.min(6 * 3600, Math.max(MIN_MAX_EVENT_AGE_SECONDS, timeoutSeconds * 2)),
      ),
      // A failed or expired event of a tenant that is not followed: kept, with its payload.
      ...(onFailure ? { onFailure: { bind: () => ({ destination: onFailure }) } } : {}),
    } satisfies Partial<lambda.FunctionProps>;

    this.function = new lambda.Function(this, 'Function', {
      ...common,
      code: props.code,
      handler: BUNDLE_HANDLER,
      environment: { ...environment, NODE_OPTIONS: '--enable-source-maps' },
    });
    if (vpc) {
      // Imported by id, so no VPC lookup (and no context) is needed at synth time.
      (this.function.node.defaultChild as lambda.CfnFunction).vpcConfig = {
        subnetIds: vpc.subnetIds,
        securityGroupIds: vpc.securityGroupIds,
      };
    }

    new EksAccessEntries(this, 'Eks', { tenant, role });

    const window = windowOf(tenant, global);
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: `tenantplane sync of tenant ${tenant.name}`,
      schedule: scheduler.ScheduleExpression.expression(tenant.schedule),
      // Tenants sharing a rate do not all call the host in the same second.
      timeWindow:
        window > 0
          ? scheduler.TimeWindow.flexible(Duration.minutes(window))
          : scheduler.TimeWindow.off(),
      target: new LambdaInvoke(this.function, {
        role: props.scheduleRole,
        input: scheduler.ScheduleTargetInput.fromObject({ tenant: tenant.name }),
        // Only a tick the scheduler could not hand to Lambda is retried (no pass ran), briefly,
        // then kept in the dead-letter queue.
        retryAttempts: SCHEDULE_RETRY_ATTEMPTS,
        maxEventAge: Duration.seconds(SCHEDULE_MAX_EVENT_AGE_SECONDS),
        deadLetterQueue: props.deadLetterQueue,
      }),
    });

    // The scheduler's grant (LambdaInvoke's) covers the function and its versions (`:*`).
    const functionId = Stack.of(this).getLogicalId(this.function.node.defaultChild as CfnElement);
    Validations.of(props.scheduleRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason: `EventBridge Scheduler may invoke the sync function of tenant ${tenant.name} and its versions (the \`:*\` of CDK's invoke grant): one function, no other.`,
    });

    this.rule = new events.Rule(this, 'SyncRequested', {
      description: `tenantplane: manual sync of tenant ${tenant.name}`,
      eventBus: props.eventBus,
      eventPattern: { detailType: [SYNC_REQUESTED], detail: { tenant: [tenant.name] } },
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0 })],
    });
    // The queue is the shared stack's, whose policy lets the bus's rules send to it; set here
    // rather than through the target, which would try (and fail) to add that policy itself.
    (this.rule.node.defaultChild as events.CfnRule).addPropertyOverride(
      'Targets.0.DeadLetterConfig.Arn',
      props.deadLetterQueue.queueArn,
    );

    this.queries = tenantQueries().map(
      ({ what, query }) =>
        new logs.CfnQueryDefinition(this, `Query-${what}`, {
          name: queryNameFor(tenant.name, what, stage),
          queryString: query,
          logGroupNames: [this.logGroup.logGroupName],
        }),
    );

    const heartbeat = heartbeatOf(tenant, global);
    // Config validation refuses a tenant whose heartbeat it cannot tell.
    if (!heartbeat) throw new Error(`tenant ${tenant.name}: no heartbeat for ${tenant.schedule}`);
    this.alarms = tenantAlarms(this, {
      tenant: tenant.name,
      function: this.function,
      alarms: global.alarms,
      namespace,
      stage,
      heartbeat,
      followed,
      topic: props.alarmTopic,
    });
  }
}
