/**
 * How failures reach someone, in the shared stack: the alarm topic (created, or the one the
 * config names) with its e-mail subscriptions, and the app's dead-letter queue with its alarm.
 * The queue collects what could not be run: ticks EventBridge Scheduler could not hand to
 * Lambda, SyncRequested events the bus's rules could not deliver, and asynchronous invocations
 * of a tenant that is not followed which failed or expired.
 */
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { AlarmsConfig } from '../config.js';
import { appAlarmNameFor, DEFAULT_ALARM_TOPIC_NAME, staged } from '../names.js';

/** How long the dead-letter queue keeps a message: the longest SQS allows. */
export const DEAD_LETTER_RETENTION_DAYS = 14;

/**
 * The topic the app creates: `topicName`, or, for e-mails with no topic given, the default
 * name; with the stage's prefix. Undefined when the config names an existing topic or none.
 */
export function alarmTopicName(alarms: AlarmsConfig, stage?: string): string | undefined {
  if (alarms.topicArn) return undefined;
  const name = alarms.topicName ?? (alarms.emails ? DEFAULT_ALARM_TOPIC_NAME : undefined);
  return name ? staged(name, stage) : undefined;
}

export interface AlarmDeliveryProps {
  alarms: AlarmsConfig;
  stage?: string | undefined;
  /** The bus whose rules may send undeliverable events to the queue. */
  eventBusName: string;
  deadLetterQueueName: string;
}

export class AlarmDelivery extends Construct {
  /** The topic created here (none when the config names an existing one, or no topic). */
  readonly createdTopic: sns.Topic | undefined;
  readonly topic: sns.ITopic | undefined;
  readonly deadLetterQueue: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: AlarmDeliveryProps) {
    super(scope, id);
    const { alarms, stage } = props;
    const topicName = alarmTopicName(alarms, stage);
    if (topicName) {
      // In the stack's scope, where it always was: a new logical id would replace the named topic.
      this.createdTopic = new sns.Topic(Stack.of(this), 'AlarmTopic', {
        topicName,
        displayName: 'tenantplane alarms',
        enforceSSL: true,
      });
      // enforceSSL gives the topic a policy of its own, which replaces the default one that let
      // the account's alarms publish: without this statement no alarm would reach anyone.
      this.createdTopic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AlarmsOfThisAccountPublish',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.createdTopic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
            ArnLike: {
              'aws:SourceArn': Stack.of(this).formatArn({
                service: 'cloudwatch',
                resource: 'alarm',
                resourceName: '*',
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            },
          },
        }),
      );
      Validations.of(this.createdTopic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key, and alarm notifications carry no secret (alarm names, states and metric values). To encrypt them, name a topic encrypted with a customer managed key whose policy lets cloudwatch.amazonaws.com use it, as alarms.topicArn.',
      });
    }
    this.topic =
      this.createdTopic ??
      (alarms.topicArn ? sns.Topic.fromTopicArn(this, 'GivenTopic', alarms.topicArn) : undefined);
    if (this.topic)
      for (const [i, endpoint] of (alarms.emails ?? []).entries())
        new sns.Subscription(this, `Email${i}`, {
          topic: this.topic,
          protocol: sns.SubscriptionProtocol.EMAIL,
          endpoint,
        });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      queueName: props.deadLetterQueueName,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(DEAD_LETTER_RETENTION_DAYS),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the dead-letter queue itself: of EventBridge Scheduler schedules, EventBridge rule targets and Lambda asynchronous invocations, none of which cdk-nag sees as a dead-letter source.',
    });
    // Rules of the app's bus only (any tenant stack's): the rule ARNs are `rule/<bus>/<name>`.
    const stack = Stack.of(this);
    this.deadLetterQueue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'UndeliverableSyncRequests',
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.deadLetterQueue.queueArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'events',
              resource: 'rule',
              resourceName: `${props.eventBusName}/*`,
            }),
          },
        },
      }),
    );

    this.deadLetterAlarm = new cloudwatch.Alarm(this, 'DeadLettersAlarm', {
      alarmName: appAlarmNameFor('dead-letters', stage),
      alarmDescription: `Passes that never ran are waiting in the SQS queue ${props.deadLetterQueueName}: ticks the scheduler could not deliver, SyncRequested events the bus could not deliver, or invocations that failed or expired. Each message names its tenant; read them, fix the cause, then purge the queue.`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(alarms.periodMinutes),
        statistic: cloudwatch.Stats.MAXIMUM,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      const action = new SnsAction(this.topic);
      this.deadLetterAlarm.addAlarmAction(action);
      this.deadLetterAlarm.addOkAction(action);
    }
  }
}
