/**
 * cdk-nag's AwsSolutions pack over the whole app: silent for the sample config, a production
 * config (stage, VPC, KMS key, alarm e-mails) and one naming an existing topic; every finding it
 * would raise is acknowledged on the one construct it is about, for one rule, with its reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { REPO_ROOT } from '../../infra/bundle.js';
import { parseTenantsConfig } from '../../infra/config.js';
import { handlerBundleDir, nagFindings, PRODUCTION_YAML } from './support.js';

let bundleDir: string;
beforeAll(async () => {
  bundleDir = await handlerBundleDir();
});

const SAMPLE = readFileSync(join(REPO_ROOT, 'config', 'tenants.yaml'), 'utf8');
const EXISTING_TOPIC = PRODUCTION_YAML.replace(
  '    emails:',
  '    topicArn: arn:aws:sns:eu-west-1:123456789012:oncall\n    emails:',
);

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the sample config', () => {
    expect(nagFindings(parseTenantsConfig(SAMPLE), { bundleDir }).findings).toEqual([]);
  });

  it('finds nothing unacknowledged in a production config: stage, VPC, KMS key, e-mails', () => {
    expect(nagFindings(parseTenantsConfig(PRODUCTION_YAML), { bundleDir }).findings).toEqual([]);
  });

  it('finds nothing unacknowledged with an existing topic', () => {
    expect(nagFindings(parseTenantsConfig(EXISTING_TOPIC), { bundleDir }).findings).toEqual([]);
  });

  it('does report what it is not told about (the check runs)', () => {
    const { findings } = nagFindings(parseTenantsConfig(SAMPLE), {
      bundleDir,
      extra: (app) => {
        const stack = new Stack(app, 'Unrelated');
        new sqs.Queue(stack, 'Plain', { encryption: sqs.QueueEncryption.UNENCRYPTED });
      },
    });
    expect(findings.map((f) => f.rule)).toEqual(
      expect.arrayContaining(['AwsSolutions-SQS2', 'AwsSolutions-SQS3', 'AwsSolutions-SQS4']),
    );
    expect(findings.every((f) => f.path.startsWith('Unrelated/'))).toBe(true);
  });

  it('acknowledges each finding on its own construct, for one rule, with a reason', () => {
    const { acknowledged } = nagFindings(parseTenantsConfig(PRODUCTION_YAML), { bundleDir });
    for (const { id, reason } of acknowledged) {
      // A whole rule only where the rule has one finding per construct; IAM5 per resource.
      expect(id).toMatch(/^Annotation::AwsSolutions-(SNS2|SQS3|IAM5\[Resource::.+\])$/);
      expect(reason.length).toBeGreaterThan(80);
    }
    const where = (rule: string) =>
      acknowledged.filter((a) => a.id.includes(rule)).map((a) => a.path);
    expect(where('SNS2')).toEqual(['prod-TenantplaneShared/AlarmTopic']);
    expect(where('SQS3')).toEqual(['prod-TenantplaneShared/Alarms/DeadLetters']);
    // The scheduler role, once per function it invokes (`<fn>.Arn:*`); each VPC function's role,
    // for the two EC2 resources it cannot name (Describe*, network interfaces Lambda picks).
    const iam5 = acknowledged.filter((a) => a.id.includes('IAM5'));
    expect(iam5.filter((a) => a.path.endsWith('/SchedulerRole'))).toHaveLength(3);
    const vpcRoles = iam5.filter((a) => a.path.endsWith('/Role'));
    expect(vpcRoles.map((a) => a.path).sort()).toEqual(
      ['dev', 'dev', 'edge', 'edge', 'prod', 'prod'].map(
        (t) => `prod-TenantplaneTenants-1/Tenant-${t}/Role`,
      ),
    );
    expect(new Set(vpcRoles.map((a) => a.id.replace(/^.*\[/, '[')))).toEqual(
      new Set([
        '[Resource::*]',
        '[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:*/*]',
      ]),
    );
  });
});
