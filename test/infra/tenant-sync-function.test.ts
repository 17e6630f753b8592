/**
 * Fine-grained assertions on one tenant stack's functions: runtime, architecture, schedule and its
 * input, reserved concurrency, retries, log retention, the SyncRequested rule and the IAM policy
 * (exactly the two secrets). Queries and alarms: tenant-observability.test.ts.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { parseTenantsConfig } from '../../infra/config.js';
import {
  asArray,
  handlerBundleDir,
  hostSecretOf,
  logicalIdOf,
  render,
  type Statement,
  synth,
  TWO_TENANTS_YAML,
} from './support.js';

const SECRET_PREFIX = [
  'arn:',
  '{AWS::Partition}:secretsmanager:',
  '{AWS::Region}:',
  '{AWS::AccountId}:secret:',
].join('$');

let tenants: Template;

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(TWO_TENANTS_YAML), {
    bundleDir: await handlerBundleDir(),
  });
  expect(tp.shards).toHaveLength(1);
  tenants = template(tp.shards[0]!);
});

const functionId = (tenant: string) =>
  logicalIdOf(tenants, 'AWS::Lambda::Function', { FunctionName: `tenantplane-sync-${tenant}` });

describe('TenantSyncFunction', () => {
  it('runs nodejs24.x on arm64 from the shared ESM bundle, with source maps', () => {
    for (const tenant of ['dev', 'staging']) {
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `tenantplane-sync-${tenant}`,
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Code: { S3Bucket: Match.anyValue(), S3Key: Match.stringLikeRegexp('\\.zip$') },
        Environment: {
          Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps', TENANT: tenant }),
        },
      });
    }
    // One asset for every function: the handler is bundled once.
    const keys = Object.values(tenants.findResources('AWS::Lambda::Function')).map(
      (r) => (r as { Properties: { Code: { S3Key: string } } }).Properties.Code.S3Key,
    );
    expect(new Set(keys).size).toBe(1);
  });

  it('passes tenant, secret ids and budget through the environment', () => {
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-dev',
      MemorySize: 1024,
      Timeout: 300,
      Environment: {
        Variables: {
          TENANT: 'dev',
          TENANT_KUBECONFIG_SECRET_ID: 'tenantplane/tenants/dev/kubeconfig',
          HOST_KUBECONFIG_SECRET_ID: hostSecretOf('dev'),
          MAX_WRITES: '500',
          PAGE_SIZE: '250',
          CONCURRENCY: '8',
          POWERTOOLS_SERVICE_NAME: 'tenantplane-sync',
          POWERTOOLS_METRICS_NAMESPACE: 'Tenantplane',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-staging',
      MemorySize: 512,
      Timeout: 120,
      Environment: { Variables: Match.objectLike({ MAX_WRITES: Match.absent() }) },
    });
  });

  it('never runs two passes of a tenant at once and never retries automatically', () => {
    for (const tenant of ['dev', 'staging']) {
      const id = functionId(tenant);
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `tenantplane-sync-${tenant}`,
        ReservedConcurrentExecutions: 1,
      });
      tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: id },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 0,
      });
    }
    // A queued event expires after two timeouts instead of piling up behind a running pass.
    tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('dev') },
      MaximumEventAgeInSeconds: 600,
    });
  });

  it('writes to its own log group with the configured retention', () => {
    for (const tenant of ['dev', 'staging']) {
      const logGroup = logicalIdOf(tenants, 'AWS::Logs::LogGroup', {
        LogGroupName: `/tenantplane/sync/${tenant}`,
      });
      tenants.hasResourceProperties('AWS::Logs::LogGroup', {
        LogGroupName: `/tenantplane/sync/${tenant}`,
        RetentionInDays: 14,
      });
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `tenantplane-sync-${tenant}`,
        LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logGroup } },
      });
    }
  });

  it('is scheduled with the tenant as input, spread over a window; an undelivered tick is dead-lettered', () => {
    const cases = [
      ['dev', 'rate(5 minutes)', 2],
      ['staging', 'cron(0/10 * * * ? *)', 5],
    ] as const;
    for (const [tenant, expression, window] of cases) {
      tenants.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: expression,
        State: 'ENABLED',
        FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: window },
        Target: {
          Arn: { 'Fn::GetAtt': [functionId(tenant), 'Arn'] },
          Input: JSON.stringify({ tenant }),
          // Only delivery is retried (no pass ran), for a minute at most.
          RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
          DeadLetterConfig: { Arn: Match.anyValue() },
          RoleArn: Match.anyValue(),
        },
      });
    }
    tenants.resourceCountIs('AWS::Scheduler::Schedule', 2);
  });

  it('lets the scheduler invoke exactly the functions of its stack', () => {
    const [role] = Object.entries(tenants.findResources('AWS::IAM::Role')).find(([, r]) =>
      JSON.stringify(r).includes('scheduler.amazonaws.com'),
    )!;
    const policies = Object.values(tenants.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p).includes(role),
    );
    expect(policies).toHaveLength(1);
    const statements = (
      policies[0] as { Properties: { PolicyDocument: { Statement: Statement[] } } }
    ).Properties.PolicyDocument.Statement;
    const invoke = statements.filter((s) => s.Action === 'lambda:InvokeFunction');
    const resources = invoke.flatMap((s) => asArray(s.Resource).map(render));
    // Besides invoking: sending an undeliverable tick to the app's dead-letter queue, only.
    const others = statements.filter((s) => !invoke.includes(s));
    expect(others.map((s) => [s.Action, asArray(s.Resource).map(render)])).toEqual([
      [
        'sqs:SendMessage',
        [
          ['arn:', '{AWS::Partition}:sqs:', '{AWS::Region}:', '{AWS::AccountId}:'].join('$') +
            'tenantplane-dead-letters',
        ],
      ],
    ]);
    expect(resources.sort()).toEqual(
      ['dev', 'staging']
        .flatMap((t) => [`\${${functionId(t)}.Arn}`, `\${${functionId(t)}.Arn}:*`])
        .sort(),
    );
  });

  it('reacts to SyncRequested events of its tenant on the custom bus, without retry', () => {
    for (const tenant of ['dev', 'staging']) {
      tenants.hasResourceProperties('AWS::Events::Rule', {
        EventBusName: 'tenantplane',
        EventPattern: { 'detail-type': ['SyncRequested'], detail: { tenant: [tenant] } },
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionId(tenant), 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 0 },
          }),
        ],
      });
      tenants.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [functionId(tenant), 'Arn'] },
        Principal: 'events.amazonaws.com',
      });
    }
  });

  it('may read exactly its own tenant secret and its own host secret, nothing broader', () => {
    const expected: Record<string, string[]> = {
      dev: [
        `${SECRET_PREFIX}tenantplane/tenants/dev/kubeconfig-??????`,
        `${SECRET_PREFIX}${hostSecretOf('dev')}-??????`,
      ],
      staging: [
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:staging-kc-AbCdEf',
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:staging-host-kc-GhIjKl',
      ],
    };
    const roles = tenants.findResources('AWS::IAM::Role');
    const policies = tenants.findResources('AWS::IAM::Policy');
    for (const tenant of ['dev', 'staging']) {
      const fn = tenants.findResources('AWS::Lambda::Function')[functionId(tenant)] as {
        Properties: { Role: { 'Fn::GetAtt': [string, string] } };
      };
      const roleId = fn.Properties.Role['Fn::GetAtt'][0];
      const role = roles[roleId] as {
        Properties: {
          ManagedPolicyArns?: unknown;
          Policies: { PolicyDocument: { Statement: Statement[] } }[];
        };
      };
      // No managed policies and no separate policies attached: everything is in the role.
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      expect(JSON.stringify(policies)).not.toContain(roleId);

      const statements = role.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement);
      const secretStatements = statements.filter((s) =>
        asArray(s.Action).some((a) => a.startsWith('secretsmanager:')),
      );
      expect(secretStatements).toHaveLength(1);
      expect(secretStatements[0]!.Action).toBe('secretsmanager:GetSecretValue');
      expect(secretStatements[0]!.Effect).toBe('Allow');
      expect(asArray(secretStatements[0]!.Resource).map(render).sort()).toEqual(
        expected[tenant]!.sort(),
      );
      // Nothing else in the role grants anything on every resource, or any wildcard action.
      for (const s of statements) {
        expect(asArray(s.Resource).map(render)).not.toContain('*');
        for (const action of asArray(s.Action)) expect(action).not.toContain('*');
      }
      const logs = statements.find((s) => s.Sid === 'WriteOwnLogs')!;
      expect(asArray(logs.Resource).map(render)).toEqual([
        `\${${logicalIdOf(tenants, 'AWS::Logs::LogGroup', { LogGroupName: `/tenantplane/sync/${tenant}` })}.Arn}`,
      ]);
    }
  });

  it("gives each function its own host identity: no role may read another tenant's host secret", () => {
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-staging',
      Environment: {
        Variables: Match.objectLike({
          HOST_KUBECONFIG_SECRET_ID:
            'arn:aws:secretsmanager:eu-west-1:123456789012:secret:staging-host-kc-GhIjKl',
        }),
      },
    });
    const readers = new Map<string, string[]>();
    for (const [id, role] of Object.entries(tenants.findResources('AWS::IAM::Role'))) {
      const policies =
        (role as { Properties: { Policies?: { PolicyDocument: { Statement: Statement[] } }[] } })
          .Properties.Policies ?? [];
      for (const s of policies.flatMap((p) => p.PolicyDocument.Statement))
        if (asArray(s.Action).includes('secretsmanager:GetSecretValue'))
          for (const resource of asArray(s.Resource).map(render))
            readers.set(resource, [...(readers.get(resource) ?? []), id]);
    }
    const hostReaders = [...readers].filter(([arn]) => arn.includes('host'));
    expect(hostReaders).toHaveLength(2);
    for (const [, roles] of hostReaders) expect(roles).toHaveLength(1);
  });
});
