/**
 * What operators watch per tenant: the Logs Insights saved queries over its log group, its alarms
 * on the handler's EMF metrics and Lambda Errors, and the resource count the sharding relies on.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Template } from 'aws-cdk-lib/assertions';
import { parseTenantsConfig } from '../../infra/config.js';
import { RESOURCES_PER_TENANT, RESOURCES_PER_TENANT_STACK } from '../../infra/stacks.js';
import { handlerBundleDir, logicalIdOf, synth, TWO_TENANTS_YAML } from './support.js';

let tenants: Template;

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(TWO_TENANTS_YAML), {
    bundleDir: await handlerBundleDir(),
  });
  tenants = template(tp.shards[0]!);
});

const functionId = (tenant: string) =>
  logicalIdOf(tenants, 'AWS::Lambda::Function', { FunctionName: `tenantplane-sync-${tenant}` });

describe("a tenant's queries and alarms", () => {
  it('saves Logs Insights queries over its log group', () => {
    const defs = tenants.findResources('AWS::Logs::QueryDefinition');
    const byName = new Map(
      Object.values(defs).map((d) => {
        const p = (
          d as { Properties: { Name: string; QueryString: string; LogGroupNames: unknown[] } }
        ).Properties;
        return [p.Name, p] as const;
      }),
    );
    const logGroup = logicalIdOf(tenants, 'AWS::Logs::LogGroup', {
      LogGroupName: '/tenantplane/sync/dev',
    });
    const what = ['decisions', 'skips', 'deletes', 'errors', 'pass-durations', 'incomplete-passes'];
    for (const w of what) {
      const def = byName.get(`tenantplane/dev/${w}`);
      expect(def).toBeDefined();
      expect(def!.LogGroupNames).toEqual([{ Ref: logGroup }]);
    }
    expect(byName.get('tenantplane/dev/decisions')!.QueryString).toContain(
      'filter message = "decision"',
    );
    expect(byName.get('tenantplane/dev/skips')!.QueryString).toContain('action = "Skip"');
    expect(byName.get('tenantplane/dev/deletes')!.QueryString).toContain('action = "Delete"');
    expect(byName.get('tenantplane/dev/errors')!.QueryString).toContain('level = "ERROR"');
    expect(byName.get('tenantplane/dev/pass-durations')!.QueryString).toMatch(
      /stats .*pct\(durationMs, 95\)/,
    );
    expect(byName.get('tenantplane/dev/incomplete-passes')!.QueryString).toContain(
      'ispresent(incompleteReason)',
    );
    expect(defs).toEqual(expect.any(Object));
    expect(Object.keys(defs)).toHaveLength(12);
  });

  it('alarms on failed invocations, incomplete passes and skips, notifying the topic', () => {
    const topic = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':sns:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':tp-alarms',
        ],
      ],
    };
    tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tenantplane-dev-failed-invocations',
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('dev') } }],
      Statistic: 'Sum',
      Period: 600,
      EvaluationPeriods: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic],
    });
    tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tenantplane-dev-incomplete-passes',
      Namespace: 'Tenantplane',
      MetricName: 'PassIncomplete',
      Dimensions: [{ Name: 'tenant', Value: 'dev' }],
      Statistic: 'Sum',
      Threshold: 4,
      AlarmActions: [topic],
    });
    tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tenantplane-dev-skips',
      Namespace: 'Tenantplane',
      MetricName: 'Skips',
      Dimensions: [{ Name: 'tenant', Value: 'dev' }],
      Threshold: 2,
      AlarmActions: [topic],
    });
    // Per tenant: those three, the heartbeat, events dropped and throttles.
    tenants.resourceCountIs('AWS::CloudWatch::Alarm', 12);
  });

  it('costs the documented number of resources per tenant', () => {
    const count = Object.keys(tenants.toJSON().Resources as object).length;
    // RESOURCES_PER_TENANT_STACK counts CDKMetadata, which `cdk synth` adds and a bare App does not.
    expect(count).toBe(2 * RESOURCES_PER_TENANT + RESOURCES_PER_TENANT_STACK - 1);
  });
});
