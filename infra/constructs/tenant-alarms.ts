/**
 * The alarms of one tenant: what failed (Lambda Errors), what keeps ending incomplete or
 * skipping, what went silent (the heartbeat: no completed pass for a while, missing data
 * breaching, so a disabled schedule or a function that never starts raises it), and, for a
 * tenant that is not followed, events Lambda dropped and passes that keep throttling each other.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { SyncMetric, TENANT_DIMENSION } from '../../functions/sync/contract.js';
import type { AlarmsConfig } from '../config.js';
import { alarmNameFor } from '../names.js';

export interface TenantAlarmsProps {
  tenant: string;
  function: lambda.IFunction;
  alarms: AlarmsConfig;
  /** The handler's EMF namespace (a stage has its own). */
  namespace: string;
  stage?: string | undefined;
  /** The heartbeat's period and how many periods without a completed pass raise it. */
  heartbeat: { periodMinutes: number; periods: number };
  /**
   * A followed tenant: a tick arriving while a follow runs is throttled and then dropped by
   * design, so neither throttles nor dropped events mean anything is wrong.
   */
  followed: boolean;
  topic?: sns.ITopic | undefined;
}

/** The alarms of one tenant, notifying the topic (the heartbeat also when it recovers). */
export function tenantAlarms(scope: Construct, props: TenantAlarmsProps): cloudwatch.Alarm[] {
  const { tenant, alarms } = props;
  const period = Duration.minutes(alarms.periodMinutes);
  const tenantMetric = (metricName: string, metricPeriod = period) =>
    new cloudwatch.Metric({
      namespace: props.namespace,
      metricName,
      dimensionsMap: { [TENANT_DIMENSION]: tenant },
      statistic: cloudwatch.Stats.SUM,
      period: metricPeriod,
    });
  const alarm = (
    id: string,
    what: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    description: string,
  ) =>
    new cloudwatch.Alarm(scope, id, {
      alarmName: alarmNameFor(tenant, what, props.stage),
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods: alarms.evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  const lambdaMetric = (name: string) =>
    props.function.metric(name, { period, statistic: cloudwatch.Stats.SUM });
  const queries = (what: string) =>
    `See the ${props.stage ? `${props.stage}/` : ''}tenantplane/${tenant}/${what} query.`;

  const found = [
    alarm(
      'FailedInvocations',
      'failed-invocations',
      lambdaMetric('Errors'),
      alarms.failedInvocationsThreshold,
      `Sync passes of tenant ${tenant} failed (pass-level error: unreachable cluster, bad kubeconfig or policy). ${queries('errors')}`,
    ),
    alarm(
      'IncompletePasses',
      'incomplete-passes',
      tenantMetric(SyncMetric.PassIncomplete),
      alarms.incompletePassesThreshold,
      `Sync passes of tenant ${tenant} keep ending incomplete (deadline or write budget). ${queries('incomplete-passes')}`,
    ),
    alarm(
      'Skips',
      'skips',
      tenantMetric(SyncMetric.Skips),
      alarms.skipsThreshold,
      `Tenant ${tenant} has objects tenantplane refused to write (name collision or foreign host object). ${queries('skips')}`,
    ),
  ];
  if (!props.followed)
    found.push(
      alarm(
        'AsyncEventsDropped',
        'events-dropped',
        lambdaMetric('AsyncEventsDropped'),
        1,
        `Lambda gave up on scheduled or requested passes of tenant ${tenant} without running them to success: they failed, or expired waiting behind a running pass. Each is in the dead-letter queue, with its reason.`,
      ),
      alarm(
        'Throttles',
        'throttles',
        lambdaMetric('Throttles'),
        alarms.throttlesThreshold,
        `Passes of tenant ${tenant} keep arriving while another one runs (reserved concurrency 1): its passes take longer than its schedule interval. Give it a longer schedule, a larger budget.timeoutSeconds, or follow mode.`,
      ),
    );
  const heartbeatPeriod = Duration.minutes(props.heartbeat.periodMinutes);
  const heartbeat = new cloudwatch.Alarm(scope, 'Heartbeat', {
    alarmName: alarmNameFor(tenant, 'heartbeat', props.stage),
    alarmDescription: `No sync pass of tenant ${tenant} completed (nor found another process holding its lease) in ${props.heartbeat.periods} periods of ${props.heartbeat.periodMinutes} minutes: its schedule may be disabled, its function failing or never started, or every pass incomplete. ${queries('errors')}`,
    // Alive: a completed pass, or a tick that found the tenant's lease held by another process
    // (a `sync --follow` Deployment converges it). Missing values count as 0, so one series
    // without data does not hide the other; both without data is silence.
    metric: new cloudwatch.MathExpression({
      expression: 'FILL(complete, 0) + FILL(dropped, 0)',
      usingMetrics: {
        complete: tenantMetric(SyncMetric.PassComplete, heartbeatPeriod),
        dropped: tenantMetric(SyncMetric.TicksDropped, heartbeatPeriod),
      },
      period: heartbeatPeriod,
      label: 'completed passes and ticks left to another lease holder',
    }),
    threshold: 1,
    evaluationPeriods: props.heartbeat.periods,
    datapointsToAlarm: props.heartbeat.periods,
    comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
    // Silence is the failure this alarm is for: no data is no completed pass.
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
  });
  found.push(heartbeat);
  if (props.topic) {
    const action = new SnsAction(props.topic);
    for (const a of found) a.addAlarmAction(action);
    heartbeat.addOkAction(action);
  }
  return found;
}
