/**
 * Everything one tenant cluster needs to be synced: the function (one bounded pass per
 * invocation; for a followed tenant, a follow after a pass that found it active), its log group, its schedule, its manual-trigger rule, read access to exactly its
 * two kubeconfig secrets (its tenant cluster's and its own host identity's), saved log queries and
 * alarms.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  METRICS_NAMESPACE,
  SERVICE_NAME,
  SYNC_REQUESTED,
  SyncEnv,
  SyncMetric,
  TENANT_DIMENSION,
} from '../../functions/sync/contract.js';
import { BUNDLE_HANDLER } from '../bundle.js';
import type { GlobalConfig, TenantConfig } from '../config.js';
import { DEFAULT_FOLLOW_TIMEOUT_SECONDS } from '../config-rules.js';
import { alarmNameFor, functionNameFor, logGroupNameFor, queryNameFor } from '../names.js';
import { tenantQueries } from '../queries.js';
import {
  clusterAccessEnvironment,
  EksAccessEntries,
  eksPolicyStatements,
  kubeconfigSecretIds,
} from './eks-access.js';

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const DEFAULT_MEMORY_MIB = 512;
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
  /**
   * The handler code: the bundle built once for the whole app (`lambda.Code.fromAsset` of
   * `bundleSyncHandler().dir`, see infra/bundle.ts), shared by every function of a stack.
   */
  code: lambda.Code;
}

/**
 * The IAM resource for a secret id: a name becomes a partial ARN with the `-??????` suffix
 * Secrets Manager appends to names; a full ARN is used as is.
 */
export function secretResourceArn(scope: Construct, secretId: string): string {
  if (secretId.startsWith('arn:')) return secretId;
  return Stack.of(scope).formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${secretId}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
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
    const timeoutSeconds =
      tenant.budget?.timeoutSeconds ??
      (tenant.follow ? DEFAULT_FOLLOW_TIMEOUT_SECONDS : DEFAULT_TIMEOUT_SECONDS);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: logGroupNameFor(tenant.name),
      retention: global.logRetentionDays as logs.RetentionDays,
    });

    // Least privilege, inline (one resource): write its own log group, read its two secrets. The
    // host secret is this tenant's own (config validation refuses a shared one), so no function
    // can read the host identity of another tenant.
    const secretIds = kubeconfigSecretIds(tenant);
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `tenantplane sync of tenant ${tenant.name}`,
      inlinePolicies: {
        sync: new iam.PolicyDocument({
          statements: [
            // No secret read for a cluster on EKS: the function signs its own token.
            ...(secretIds.length === 0
              ? []
              : [
                  new iam.PolicyStatement({
                    sid: 'ReadKubeconfigSecrets',
                    actions: ['secretsmanager:GetSecretValue'],
                    resources: secretIds.map((id) => secretResourceArn(this, id)),
                  }),
                ]),
            ...eksPolicyStatements(this, tenant),
            new iam.PolicyStatement({
              sid: 'WriteOwnLogs',
              actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
              resources: [this.logGroup.logGroupArn],
            }),
          ],
        }),
      },
    });

    const environment: Record<string, string> = {
      [SyncEnv.Tenant]: tenant.name,
      ...clusterAccessEnvironment(tenant),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    };
    const budget = tenant.budget ?? {};
    if (budget.maxWrites !== undefined) environment[SyncEnv.MaxWrites] = String(budget.maxWrites);
    if (budget.pageSize !== undefined) environment[SyncEnv.PageSize] = String(budget.pageSize);
    if (budget.concurrency !== undefined)
      environment[SyncEnv.Concurrency] = String(budget.concurrency);
    if (tenant.follow) environment[SyncEnv.FollowQuietSeconds] = String(tenant.follow.quietSeconds);

    const common = {
      functionName: functionNameFor(tenant.name),
      description: tenant.follow
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
      reservedConcurrentExecutions: 1,
      // No automatic retry: the next schedule is the retry. A scheduled event queued behind a
      // running pass (concurrency 1) expires rather than pile up. A followed tenant's tick that
      // arrives while an invocation follows it is dropped after the shortest age Lambda allows
      // (60 s): the follow converges it already, and the next tick starts a new one if needed.
      retryAttempts: 0,
      maxEventAge: Duration.seconds(
        tenant.follow
          ? MIN_MAX_EVENT_AGE_SECONDS
          : Math.min(6 * 3600, Math.max(MIN_MAX_EVENT_AGE_SECONDS, timeoutSeconds * 2)),
      ),
    } satisfies Partial<lambda.FunctionProps>;

    this.function = new lambda.Function(this, 'Function', {
      ...common,
      code: props.code,
      handler: BUNDLE_HANDLER,
      environment: { ...environment, NODE_OPTIONS: '--enable-source-maps' },
    });

    new EksAccessEntries(this, 'Eks', { tenant, role });

    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      description: `tenantplane sync of tenant ${tenant.name}`,
      schedule: scheduler.ScheduleExpression.expression(tenant.schedule),
      target: new LambdaInvoke(this.function, {
        role: props.scheduleRole,
        input: scheduler.ScheduleTargetInput.fromObject({ tenant: tenant.name }),
        retryAttempts: 0,
      }),
    });

    this.rule = new events.Rule(this, 'SyncRequested', {
      description: `tenantplane: manual sync of tenant ${tenant.name}`,
      eventBus: props.eventBus,
      eventPattern: { detailType: [SYNC_REQUESTED], detail: { tenant: [tenant.name] } },
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0 })],
    });

    this.queries = tenantQueries().map(
      ({ what, query }) =>
        new logs.CfnQueryDefinition(this, `Query-${what}`, {
          name: queryNameFor(tenant.name, what),
          queryString: query,
          logGroupNames: [this.logGroup.logGroupName],
        }),
    );

    const alarms = global.alarms;
    const period = Duration.minutes(alarms.periodMinutes);
    const tenantMetric = (metricName: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { [TENANT_DIMENSION]: tenant.name },
        statistic: cloudwatch.Stats.SUM,
        period,
      });
    const alarm = (
      id: string,
      what: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
    ) =>
      new cloudwatch.Alarm(this, id, {
        alarmName: alarmNameFor(tenant.name, what),
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: alarms.evaluationPeriods,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.alarms = [
      alarm(
        'FailedInvocations',
        'failed-invocations',
        this.function.metricErrors({ period, statistic: cloudwatch.Stats.SUM }),
        alarms.failedInvocationsThreshold,
        `Sync passes of tenant ${tenant.name} failed (pass-level error: unreachable cluster, bad kubeconfig or policy). See the tenantplane/${tenant.name}/errors query.`,
      ),
      alarm(
        'IncompletePasses',
        'incomplete-passes',
        tenantMetric(SyncMetric.PassIncomplete),
        alarms.incompletePassesThreshold,
        `Sync passes of tenant ${tenant.name} keep ending incomplete (deadline or write budget). See the tenantplane/${tenant.name}/incomplete-passes query.`,
      ),
      alarm(
        'Skips',
        'skips',
        tenantMetric(SyncMetric.Skips),
        alarms.skipsThreshold,
        `Tenant ${tenant.name} has objects tenantplane refused to write (name collision or foreign host object). See the tenantplane/${tenant.name}/skips query.`,
      ),
    ];
    if (props.alarmTopic) {
      const action = new SnsAction(props.alarmTopic);
      for (const a of this.alarms) a.addAlarmAction(action);
    }
  }
}
