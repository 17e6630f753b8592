/**
 * A config for a real account (support.ts PRODUCTION_YAML: stage `prod`, a VPC, a KMS key, a
 * log level, alarm e-mails), asserted resource by resource: the functions in their VPC with the
 * network-interface permissions, the key usable through Secrets Manager only, the e-mail
 * subscriptions, the dead-letter queue and its alarm, a heartbeat per tenant, tags, and every
 * name prefixed with the stage.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { parseTenantsConfig } from '../../infra/config.js';
import {
  asArray,
  handlerBundleDir,
  logicalIdOf,
  PRODUCTION_YAML,
  render,
  type Statement,
  synth,
} from './support.js';

let shared: Template;
let tenants: Template;
let stackNames: string[];

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(PRODUCTION_YAML), {
    bundleDir: await handlerBundleDir(),
  });
  shared = template(tp.shared);
  tenants = template(tp.shards[0]!);
  stackNames = [tp.shared, ...tp.shards].map((s) => s.stackName);
});

const QUEUE_ARN = ['arn:', '{AWS::Partition}:sqs:', '{AWS::Region}:', '{AWS::AccountId}:']
  .join('$')
  .concat('prod-tenantplane-dead-letters');

const functionId = (tenant: string) =>
  logicalIdOf(tenants, 'AWS::Lambda::Function', {
    FunctionName: `prod-tenantplane-sync-${tenant}`,
  });

/** The statements of the inline policy of a tenant's function role. */
function roleStatements(tenant: string): Statement[] {
  const fn = tenants.findResources('AWS::Lambda::Function')[functionId(tenant)] as {
    Properties: { Role: { 'Fn::GetAtt': [string, string] } };
  };
  const role = tenants.findResources('AWS::IAM::Role')[fn.Properties.Role['Fn::GetAtt'][0]] as {
    Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] };
  };
  return role.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement);
}

describe('a VPC', () => {
  it('runs each function in its subnets and security groups: the global ones, or its own', () => {
    for (const tenant of ['dev', 'prod'])
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `prod-tenantplane-sync-${tenant}`,
        VpcConfig: {
          SubnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
          SecurityGroupIds: ['sg-0123456789abcdef0'],
        },
      });
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'prod-tenantplane-sync-edge',
      VpcConfig: {
        SubnetIds: ['subnet-0aaaaaaaaaaaaaaaa'],
        SecurityGroupIds: ['sg-0bbbbbbbbbbbbbbbb'],
      },
    });
    // Imported by id: nothing of the VPC is created.
    for (const type of ['AWS::EC2::VPC', 'AWS::EC2::Subnet', 'AWS::EC2::SecurityGroup'])
      tenants.resourceCountIs(type, 0);
  });

  it('gives each role the network-interface actions Lambda needs, inline, no managed policy', () => {
    const statements = roleStatements('dev');
    const manage = statements.find((s) => s.Sid === 'ManageVpcNetworkInterfaces')!;
    expect(asArray(manage.Action).sort()).toEqual([
      'ec2:AssignPrivateIpAddresses',
      'ec2:CreateNetworkInterface',
      'ec2:DeleteNetworkInterface',
      'ec2:UnassignPrivateIpAddresses',
    ]);
    expect(asArray(manage.Resource).map(render)).toEqual([
      ['arn:', '{AWS::Partition}:ec2:', '{AWS::Region}:', '{AWS::AccountId}:*/*'].join('$'),
    ]);
    const lookups = statements.find((s) => s.Sid === 'DescribeVpcNetworkInterfaces')!;
    expect(asArray(lookups.Action).sort()).toEqual([
      'ec2:DescribeNetworkInterfaces',
      'ec2:DescribeSubnets',
    ]);
    expect(lookups.Resource).toBe('*');
    for (const role of Object.values(tenants.findResources('AWS::IAM::Role')))
      expect(JSON.stringify(role)).not.toContain('ManagedPolicyArns');
  });
});

describe('the secrets key', () => {
  it('may decrypt with the KMS key only when Secrets Manager asks', () => {
    for (const tenant of ['dev', 'edge', 'prod']) {
      const kms = roleStatements(tenant).filter((s) =>
        asArray(s.Action).some((a) => a.startsWith('kms:')),
      );
      expect(kms).toEqual([
        {
          Sid: 'DecryptSecretsThroughSecretsManager',
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          Condition: {
            StringEquals: {
              'kms:ViaService': {
                'Fn::Join': ['', ['secretsmanager.', { Ref: 'AWS::Region' }, '.amazonaws.com']],
              },
            },
          },
        },
      ]);
    }
  });
});

describe('the log level', () => {
  it('is passed to every function for its logger', () => {
    for (const tenant of ['dev', 'edge', 'prod'])
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `prod-tenantplane-sync-${tenant}`,
        Environment: { Variables: Match.objectLike({ POWERTOOLS_LOG_LEVEL: 'WARN' }) },
      });
  });
});

describe('failures reach someone', () => {
  it('creates the alarm topic and subscribes each e-mail address', () => {
    shared.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'prod-tenantplane-alarms' });
    const topic = logicalIdOf(shared, 'AWS::SNS::Topic', { TopicName: 'prod-tenantplane-alarms' });
    for (const endpoint of ['oncall@example.com', 'platform@example.com'])
      shared.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: endpoint,
        TopicArn: { Ref: topic },
      });
    shared.resourceCountIs('AWS::SNS::Subscription', 2);
    // Publishing only over TLS; the topic's own policy replaces the default one, so it lets the
    // account's alarms publish, and nothing else.
    const policies = Object.values(shared.findResources('AWS::SNS::TopicPolicy'));
    expect(policies).toHaveLength(1);
    const statements = (
      policies[0] as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }
    ).Properties.PolicyDocument.Statement;
    expect(statements).toEqual([
      expect.objectContaining({
        Effect: 'Deny',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
      expect.objectContaining({
        Sid: 'AlarmsOfThisAccountPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topic },
      }),
    ]);
    const allow = statements[1] as {
      Condition: { StringEquals: Record<string, unknown>; ArnLike: Record<string, unknown> };
    };
    expect(allow.Condition.StringEquals).toEqual({
      'aws:SourceAccount': { Ref: 'AWS::AccountId' },
    });
    expect(render(allow.Condition.ArnLike['aws:SourceArn'])).toBe(
      ['arn:', '{AWS::Partition}:cloudwatch:', '{AWS::Region}:', '{AWS::AccountId}:alarm:*'].join(
        '$',
      ),
    );
  });

  it('subscribes the e-mails to an existing topic instead, creating none', async () => {
    const { tp, template } = synth(
      parseTenantsConfig(
        PRODUCTION_YAML.replace(
          '    emails:',
          '    topicArn: arn:aws:sns:eu-west-1:123456789012:oncall\n    emails:',
        ),
      ),
      { bundleDir: await handlerBundleDir() },
    );
    const existing = template(tp.shared);
    existing.resourceCountIs('AWS::SNS::Topic', 0);
    for (const endpoint of ['oncall@example.com', 'platform@example.com'])
      existing.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: endpoint,
        TopicArn: 'arn:aws:sns:eu-west-1:123456789012:oncall',
      });
    template(tp.shards[0]!).hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'prod-tenantplane-dev-heartbeat',
      AlarmActions: ['arn:aws:sns:eu-west-1:123456789012:oncall'],
      OKActions: ['arn:aws:sns:eu-west-1:123456789012:oncall'],
    });
  });

  it('keeps what could not run in one encrypted dead-letter queue, TLS only, for 14 days', () => {
    shared.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'prod-tenantplane-dead-letters',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    const queue = logicalIdOf(shared, 'AWS::SQS::Queue', {
      QueueName: 'prod-tenantplane-dead-letters',
    });
    shared.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queue }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          // The bus's rules (any tenant stack's) may send what they could not deliver.
          Match.objectLike({
            Sid: 'UndeliverableSyncRequests',
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Condition: {
              ArnLike: {
                'aws:SourceArn': {
                  'Fn::Join': ['', Match.arrayWith([':rule/prod-tenantplane/*'])],
                },
              },
            },
          }),
        ]),
      },
    });
  });

  it('sends undelivered ticks, requests and failed invocations of unfollowed tenants there', () => {
    for (const tenant of ['dev', 'edge', 'prod']) {
      tenants.hasResourceProperties('AWS::Scheduler::Schedule', {
        Target: Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionId(tenant), 'Arn'] },
          DeadLetterConfig: { Arn: Match.anyValue() },
        }),
      });
      const rule = Object.values(tenants.findResources('AWS::Events::Rule')).find((r) =>
        JSON.stringify(r).includes(functionId(tenant)),
      ) as { Properties: { Targets: { DeadLetterConfig: { Arn: unknown } }[] } };
      expect(render(rule.Properties.Targets[0]!.DeadLetterConfig.Arn)).toBe(QUEUE_ARN);
    }
    const schedules = Object.values(tenants.findResources('AWS::Scheduler::Schedule')) as {
      Properties: { Target: { DeadLetterConfig: { Arn: unknown } } };
    }[];
    for (const s of schedules)
      expect(render(s.Properties.Target.DeadLetterConfig.Arn)).toBe(QUEUE_ARN);
    for (const tenant of ['dev', 'edge']) {
      const config = Object.values(tenants.findResources('AWS::Lambda::EventInvokeConfig')).find(
        (c) => JSON.stringify(c).includes(functionId(tenant)),
      ) as { Properties: { DestinationConfig: { OnFailure: { Destination: unknown } } } };
      expect(render(config.Properties.DestinationConfig.OnFailure.Destination)).toBe(QUEUE_ARN);
      const send = roleStatements(tenant).find(
        (s) => s.Sid === 'SendFailedEventsToDeadLetterQueue',
      )!;
      expect([send.Action, asArray(send.Resource).map(render)]).toEqual([
        'sqs:SendMessage',
        [QUEUE_ARN],
      ]);
    }
    // A followed tenant drops ticks by design while it follows: none goes to the queue.
    expect(roleStatements('prod').map((s) => s.Sid)).not.toContain(
      'SendFailedEventsToDeadLetterQueue',
    );
  });

  it('alarms on a message in the dead-letter queue, and says when it is empty again', () => {
    const topic = {
      Ref: logicalIdOf(shared, 'AWS::SNS::Topic', { TopicName: 'prod-tenantplane-alarms' }),
    };
    shared.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'prod-tenantplane-dead-letters',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: Match.anyValue() }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [topic],
      OKActions: [topic],
    });
  });

  it('gives every tenant a heartbeat: no completed pass in 3 periods, silence breaching', () => {
    const cases = [
      // rate(5 minutes) in a 2-minute window: 7 minutes; cron every 10 in a 5-minute window: 15;
      // the followed tenant: its 900 s timeout (a follow publishes when its invocation ends).
      ['dev', 420],
      ['edge', 900],
      ['prod', 900],
    ] as const;
    const series = (id: string, metricName: string, tenant: string, period: number) => ({
      Id: id,
      ReturnData: false,
      MetricStat: {
        Metric: {
          Namespace: 'prod/Tenantplane',
          MetricName: metricName,
          Dimensions: [{ Name: 'tenant', Value: tenant }],
        },
        Period: period,
        Stat: 'Sum',
      },
    });
    for (const [tenant, period] of cases)
      tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `prod-tenantplane-${tenant}-heartbeat`,
        // Alive: a completed pass, or a tick that found another process holding the lease.
        Metrics: [
          Match.objectLike({
            Expression: 'FILL(complete, 0) + FILL(dropped, 0)',
            ReturnData: true,
          }),
          series('complete', 'PassComplete', tenant, period),
          series('dropped', 'TicksDropped', tenant, period),
        ],
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
        AlarmActions: [Match.anyValue()],
        OKActions: [Match.anyValue()],
      });
  });

  it('alarms on events Lambda dropped and on throttles, for tenants that are not followed', () => {
    for (const tenant of ['dev', 'edge']) {
      tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `prod-tenantplane-${tenant}-events-dropped`,
        Namespace: 'AWS/Lambda',
        MetricName: 'AsyncEventsDropped',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(tenant) } }],
        Statistic: 'Sum',
        Threshold: 1,
        AlarmActions: [Match.anyValue()],
      });
      tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `prod-tenantplane-${tenant}-throttles`,
        Namespace: 'AWS/Lambda',
        MetricName: 'Throttles',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(tenant) } }],
        Threshold: 3,
        AlarmActions: [Match.anyValue()],
      });
    }
    // dev, edge: 6 each; prod (followed): 4.
    tenants.resourceCountIs('AWS::CloudWatch::Alarm', 16);
  });
});

describe('a stage', () => {
  it('prefixes every stack and resource name', () => {
    expect(stackNames).toEqual(['prod-TenantplaneShared', 'prod-TenantplaneTenants-1']);
    shared.hasResourceProperties('AWS::Events::EventBus', { Name: 'prod-tenantplane' });
    shared.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: 'prod-tenantplane-fleet',
    });
    tenants.hasResourceProperties('AWS::Events::Rule', { EventBusName: 'prod-tenantplane' });
    tenants.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/prod/tenantplane/sync/dev',
    });
    tenants.hasResourceProperties('AWS::Logs::QueryDefinition', {
      Name: 'prod/tenantplane/dev/errors',
    });
    const names = (type: string, field: string) =>
      Object.values(tenants.findResources(type)).map(
        (r) => (r as { Properties: Record<string, string> }).Properties[field]!,
      );
    for (const name of names('AWS::Lambda::Function', 'FunctionName'))
      expect(name).toMatch(/^prod-tenantplane-sync-/);
    for (const name of names('AWS::CloudWatch::Alarm', 'AlarmName'))
      expect(name).toMatch(/^prod-tenantplane-/);
    for (const name of names('AWS::Logs::LogGroup', 'LogGroupName'))
      expect(name).toMatch(/^\/prod\/tenantplane\//);
    for (const name of names('AWS::Logs::QueryDefinition', 'Name'))
      expect(name).toMatch(/^prod\/tenantplane\//);
  });

  it("keeps the stage's metrics apart: its own namespace, on the functions and the dashboard", () => {
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'prod-tenantplane-sync-dev',
      Environment: {
        Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'prod/Tenantplane' }),
      },
    });
    const body = JSON.stringify(shared.findResources('AWS::CloudWatch::Dashboard'));
    expect(body).toContain('{\\\\\\"prod/Tenantplane\\\\\\",tenant}');
    expect(body).toContain('FunctionName=prod-tenantplane-sync');
    expect(body).not.toContain('{Tenantplane,tenant}');
  });

  it('tags every resource with the stage, and every resource of a tenant with the tenant', () => {
    const tagsOf = (r: unknown) => {
      const tags = (r as { Properties?: { Tags?: unknown } }).Properties?.Tags;
      if (Array.isArray(tags))
        return Object.fromEntries(
          (tags as { Key: string; Value: string }[]).map((t) => [t.Key, t.Value]),
        );
      return (tags ?? {}) as Record<string, string>;
    };
    const taggable = [
      'AWS::Lambda::Function',
      'AWS::IAM::Role',
      'AWS::Logs::LogGroup',
      'AWS::CloudWatch::Alarm',
      'AWS::Events::Rule',
    ];
    for (const type of taggable)
      for (const [id, r] of Object.entries(tenants.findResources(type))) {
        const tags = tagsOf(r);
        expect(tags['tenantplane:stage']).toBe('prod');
        if (id.startsWith('Tenant'))
          expect(tags['tenantplane:tenant']).toMatch(/^(dev|edge|prod)$/);
      }
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'prod-tenantplane-sync-edge',
      Tags: Match.arrayWith([{ Key: 'tenantplane:tenant', Value: 'edge' }]),
    });
    for (const type of ['AWS::SQS::Queue', 'AWS::SNS::Topic', 'AWS::Events::EventBus'])
      for (const r of Object.values(shared.findResources(type)))
        expect(tagsOf(r)['tenantplane:stage']).toBe('prod');
  });
});
