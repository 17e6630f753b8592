/**
 * Issue 37's "Done when", over ONE config as a platform engineer would write it for a real
 * account: a stage, a VPC, alarm e-mails, hosts on EKS (one tenant cluster on EKS too) beside a
 * tenant still on secrets. Every promise is asserted on the same synthesis, and cdk-nag's
 * AwsSolutions pack is silent on it; the sample config still synthesizes, silent too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { SyncEnv } from '../../functions/sync/contract.js';
import { REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig } from '../../infra/config.js';
import {
  asArray,
  handlerBundleDir,
  logicalIdOf,
  nagFindings,
  type Statement,
  synth,
} from './support.js';

/** One config with every setting the issue names together. */
const DONE_WHEN_YAML = `global:
  stage: staging
  vpc:
    subnetIds: [subnet-0123456789abcdef0, subnet-0fedcba9876543210]
    securityGroupIds: [sg-0123456789abcdef0]
  alarms:
    emails: [oncall@example.com]
tenants:
  - {name: dev, schedule: rate(5 minutes), tenantSecretId: tp/tenants/dev, hostEks: {clusterName: host-prod, region: eu-west-1}}
  - {name: qa, schedule: rate(1 minute), tenantEks: {clusterName: qa-tenant, region: eu-west-1}, hostEks: {clusterName: host-prod, region: eu-west-1}}
  - {name: legacy, schedule: "cron(0/10 * * * ? *)", tenantSecretId: tp/tenants/legacy, hostSecretId: tp/host/legacy}
`;

const TENANTS = ['dev', 'qa', 'legacy'] as const;
let shared: Template;
let tenants: Template;
let stackNames: string[];

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(DONE_WHEN_YAML), {
    bundleDir: await handlerBundleDir(),
  });
  expect(tp.shards).toHaveLength(1);
  shared = template(tp.shared);
  tenants = template(tp.shards[0]!);
  stackNames = [tp.shared, ...tp.shards].map((s) => s.stackName);
});

const functionId = (tenant: string) =>
  logicalIdOf(tenants, 'AWS::Lambda::Function', {
    FunctionName: `staging-tenantplane-sync-${tenant}`,
  });

function roleIdOf(tenant: string): string {
  const fn = tenants.findResources('AWS::Lambda::Function')[functionId(tenant)] as {
    Properties: { Role: { 'Fn::GetAtt': [string, string] } };
  };
  return fn.Properties.Role['Fn::GetAtt'][0];
}

function roleStatements(tenant: string): Statement[] {
  const role = tenants.findResources('AWS::IAM::Role')[roleIdOf(tenant)] as {
    Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] };
  };
  return role.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement);
}

const readsSecrets = (tenant: string) =>
  roleStatements(tenant).filter((s) =>
    asArray(s.Action).some((a) => a.startsWith('secretsmanager:')),
  );

describe('cdk synth of hostEks + vpc + alarms.emails + stage, in one config', () => {
  it('puts every function in the VPC', () => {
    for (const tenant of TENANTS)
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `staging-tenantplane-sync-${tenant}`,
        VpcConfig: {
          SubnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
          SecurityGroupIds: ['sg-0123456789abcdef0'],
        },
      });
  });

  it('reads no secret for an EKS host: only the tenant secret, or none at all', () => {
    const secretsOf = (tenant: string) =>
      readsSecrets(tenant).flatMap((s) => asArray(s.Resource).map((r) => JSON.stringify(r)));
    expect(secretsOf('dev').join()).toContain('tp/tenants/dev');
    expect(secretsOf('dev').join()).not.toContain('host');
    expect(readsSecrets('qa')).toEqual([]);
    expect(secretsOf('legacy').join()).toContain('tp/host/legacy');
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'staging-tenantplane-sync-dev',
      Environment: {
        Variables: Match.objectLike({ [SyncEnv.HostSecretId]: Match.absent() }),
      },
    });
  });

  it('makes an access entry for each role on EKS: per cluster it reaches, none for secrets', () => {
    const entries = Object.values(tenants.findResources('AWS::EKS::AccessEntry')) as {
      Properties: { ClusterName: string; PrincipalArn: { 'Fn::GetAtt': [string, string] } };
    }[];
    const pairs = entries
      .map((e) => `${e.Properties.PrincipalArn['Fn::GetAtt'][0]}@${e.Properties.ClusterName}`)
      .sort();
    expect(pairs).toEqual(
      [
        `${roleIdOf('dev')}@host-prod`,
        `${roleIdOf('qa')}@host-prod`,
        `${roleIdOf('qa')}@qa-tenant`,
      ].sort(),
    );
  });

  it('subscribes the e-mail address to the alarm topic', () => {
    const topic = logicalIdOf(shared, 'AWS::SNS::Topic', {
      TopicName: 'staging-tenantplane-alarms',
    });
    shared.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: topic },
    });
  });

  it('has a dead-letter queue with its alarm, and the schedules and async invocations use it', () => {
    const queue = logicalIdOf(shared, 'AWS::SQS::Queue', {
      QueueName: 'staging-tenantplane-dead-letters',
    });
    expect(queue).toBeTruthy();
    shared.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'staging-tenantplane-dead-letters',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      AlarmActions: [Match.anyValue()],
    });
    for (const s of Object.values(tenants.findResources('AWS::Scheduler::Schedule')))
      expect(JSON.stringify(s)).toContain('staging-tenantplane-dead-letters');
    tenants.resourceCountIs('AWS::Lambda::EventInvokeConfig', TENANTS.length);
    for (const c of Object.values(tenants.findResources('AWS::Lambda::EventInvokeConfig')))
      expect(JSON.stringify(c)).toContain('staging-tenantplane-dead-letters');
  });

  it('has a heartbeat alarm per tenant, missing data breaching', () => {
    for (const tenant of TENANTS)
      tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: `staging-tenantplane-${tenant}-heartbeat`,
        TreatMissingData: 'breaching',
        AlarmActions: [Match.anyValue()],
        OKActions: [Match.anyValue()],
      });
  });

  it('tags the app with its stage and each function with its tenant', () => {
    for (const tenant of TENANTS)
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `staging-tenantplane-sync-${tenant}`,
        Tags: Match.arrayWith([
          { Key: 'tenantplane:stage', Value: 'staging' },
          { Key: 'tenantplane:tenant', Value: tenant },
        ]),
      });
    shared.hasResourceProperties('AWS::SQS::Queue', {
      Tags: Match.arrayWith([{ Key: 'tenantplane:stage', Value: 'staging' }]),
    });
  });

  it('prefixes the names with the stage', () => {
    expect(stackNames).toEqual(['staging-TenantplaneShared', 'staging-TenantplaneTenants-1']);
    shared.hasResourceProperties('AWS::Events::EventBus', { Name: 'staging-tenantplane' });
    for (const [type, field] of [
      ['AWS::Lambda::Function', 'FunctionName'],
      ['AWS::CloudWatch::Alarm', 'AlarmName'],
    ] as const)
      for (const r of Object.values(tenants.findResources(type)))
        expect((r as { Properties: Record<string, string> }).Properties[field]).toMatch(
          /^staging-tenantplane-/,
        );
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('is silent on this config', async () => {
    const { findings } = nagFindings(parseTenantsConfig(DONE_WHEN_YAML), {
      bundleDir: await handlerBundleDir(),
    });
    expect(findings).toEqual([]);
  });

  it('is silent on the sample config, which still synthesizes', async () => {
    const sample = readFileSync(join(REPO_ROOT, 'config', 'tenants.yaml'), 'utf8');
    const { findings } = nagFindings(parseTenantsConfig(sample), {
      bundleDir: await handlerBundleDir(),
    });
    expect(findings).toEqual([]);
  });
});
