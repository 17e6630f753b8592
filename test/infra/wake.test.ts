/**
 * Wake in the infrastructure (docs/wake.md): `wake` on a tenant or globally makes ONE wake
 * function with a function URL (auth NONE: the function checks each tenant's token), one
 * generated token secret per woken tenant, a role that reads only those secrets and invokes only
 * those tenants' sync functions, the URL as a stack output; `scheduleMinutes` slows the woken
 * tenants' schedule; cdk-nag stays silent. Without a woken tenant there is no wake stack.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { encodeWokenTenants } from '../../functions/wake/contract.js';
import { parseTenantsConfig, TenantsConfigError } from '../../infra/config.js';
import { WAKE_URL_OUTPUT } from '../../infra/wake-stack.js';
import {
  asArray,
  handlerBundleDir,
  hostSecretOf,
  nagFindings,
  render,
  type Statement,
  synth,
  tenantsYaml,
  wakeBundleDir,
} from './support.js';

const tenant = (name: string, extra = '') =>
  `{name: ${name}, schedule: "rate(1 minute)", tenantSecretId: tp/tenants/${name}, hostSecretId: ${hostSecretOf(name)}${extra}}`;

const YAML = tenantsYaml([
  tenant('dev', ', wake: {}'),
  tenant(
    'qa',
    ', wake: {scheduleMinutes: 10}, follow: {quietSeconds: 20}, budget: {timeoutSeconds: 300}',
  ),
  tenant('plain'),
]);

/** `arn:${AWS::Partition}:lambda:...:function:` as `render` writes it. */
const LAMBDA_ARN = [
  'arn:',
  '{AWS::Partition}:lambda:',
  '{AWS::Region}:',
  '{AWS::AccountId}:function:',
].join('$');

let bundleDir: string;
let wakeDir: string;
beforeAll(async () => {
  [bundleDir, wakeDir] = await Promise.all([handlerBundleDir(), wakeBundleDir()]);
});

function wakeTemplate(yaml: string): { wake: Template; shards: Template[] } {
  const { tp, template } = synth(parseTenantsConfig(yaml), { bundleDir, wakeBundleDir: wakeDir });
  if (!tp.wake) throw new Error('no wake stack');
  return { wake: template(tp.wake), shards: tp.shards.map(template) };
}

const statementsOf = (t: Template): Statement[] => {
  const roles = Object.values(t.findResources('AWS::IAM::Role'));
  expect(roles).toHaveLength(1);
  const policies = roles[0]!.Properties.Policies as Array<{
    PolicyDocument: { Statement: Statement[] };
  }>;
  return policies.flatMap((p) => p.PolicyDocument.Statement);
};

describe('the wake stack', () => {
  it('one function with a function URL, auth NONE, and the URL as an output', () => {
    const { wake } = wakeTemplate(YAML);
    wake.resourceCountIs('AWS::Lambda::Function', 1);
    wake.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-wake',
      Handler: 'index.handler',
      Timeout: 10,
      Environment: {
        Variables: Match.objectLike({
          WAKE_TENANTS: encodeWokenTenants(
            new Map([
              ['dev', { quietSeconds: 30, timeoutSeconds: 900 }],
              ['qa', { quietSeconds: 20, timeoutSeconds: 300 }],
            ]),
          ),
          WAKE_FUNCTION_STEM: 'tenantplane-sync',
          WAKE_SECRET_PREFIX: 'tenantplane/wake/',
        }),
      },
    });
    wake.resourceCountIs('AWS::Lambda::Url', 1);
    wake.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    expect(Object.keys(wake.findOutputs(WAKE_URL_OUTPUT))).toEqual([WAKE_URL_OUTPUT]);
  });

  it('one generated token secret per woken tenant, none for the others', () => {
    const { wake } = wakeTemplate(YAML);
    wake.resourceCountIs('AWS::SecretsManager::Secret', 2);
    for (const name of ['dev', 'qa'])
      wake.hasResourceProperties('AWS::SecretsManager::Secret', {
        Name: `tenantplane/wake/${name}`,
        GenerateSecretString: Match.objectLike({ ExcludePunctuation: true, PasswordLength: 48 }),
      });
  });

  it('reads only the token secrets and invokes only the woken tenants', () => {
    const { wake } = wakeTemplate(YAML);
    const statements = statementsOf(wake);
    const bySid = new Map(statements.map((s) => [s.Sid, s]));
    expect([...bySid.keys()].sort()).toEqual([
      'InvokeWokenTenants',
      'ReadWakeTokens',
      'WriteOwnLogs',
    ]);
    expect(asArray(bySid.get('InvokeWokenTenants')!.Action)).toEqual(['lambda:InvokeFunction']);
    expect(asArray(bySid.get('InvokeWokenTenants')!.Resource).map(render)).toEqual([
      `${LAMBDA_ARN}tenantplane-sync-dev`,
      `${LAMBDA_ARN}tenantplane-sync-qa`,
    ]);
    expect(asArray(bySid.get('ReadWakeTokens')!.Action)).toEqual(['secretsmanager:GetSecretValue']);
    const secrets = asArray(bySid.get('ReadWakeTokens')!.Resource).map(render);
    expect(secrets).toHaveLength(2);
    for (const s of secrets) expect(s).toMatch(/^\$\{Token(dev|qa)[0-9A-F]+\}$/);
    for (const s of statements) expect(asArray(s.Resource).map(render)).not.toContain('*');
  });

  it('a woken tenant is followed when woken; scheduleMinutes slows its schedule', () => {
    const { shards } = wakeTemplate(YAML);
    const t = shards[0]!;
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(10 minutes)',
      Target: Match.objectLike({ Input: JSON.stringify({ tenant: 'qa' }) }),
    });
    t.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({ Input: JSON.stringify({ tenant: 'dev' }) }),
    });
    // dev: woken without a follow config: the follow timeout, the 60 s event age, no DLQ.
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-dev',
      Timeout: 900,
    });
    t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: Match.anyValue(),
      MaximumEventAgeInSeconds: 60,
      DestinationConfig: Match.absent(),
    });
    t.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-plain',
      Timeout: 120,
    });
  });

  it('global.wake wakes every tenant but the ones with wake: false, with its defaults', () => {
    const yaml = tenantsYaml(
      [tenant('a'), tenant('b', ', wake: false'), tenant('c', ', wake: {scheduleMinutes: 2}')],
      '  stage: prod\n  wake: {scheduleMinutes: 15, maxBodyBytes: 65536}\n',
    );
    const config = parseTenantsConfig(yaml);
    expect(config.tenants.map((t) => [t.name, t.schedule, t.wake])).toEqual([
      ['a', 'rate(15 minutes)', { scheduleMinutes: 15 }],
      ['b', 'rate(1 minute)', undefined],
      ['c', 'rate(2 minutes)', { scheduleMinutes: 2 }],
    ]);
    const { wake } = wakeTemplate(yaml);
    wake.resourceCountIs('AWS::SecretsManager::Secret', 2);
    wake.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'prod/tenantplane/wake/a' });
    wake.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'prod-tenantplane-wake',
      Environment: {
        Variables: Match.objectLike({
          WAKE_FUNCTION_STEM: 'prod-tenantplane-sync',
          WAKE_MAX_BODY_BYTES: '65536',
        }),
      },
    });
  });

  it('no woken tenant, no wake stack', () => {
    const { tp } = synth(parseTenantsConfig(tenantsYaml([tenant('plain')])), { bundleDir });
    expect(tp.wake).toBeUndefined();
  });

  it('cdk-nag finds nothing unacknowledged, with and without a KMS key', () => {
    expect(
      nagFindings(parseTenantsConfig(YAML), { bundleDir, wakeBundleDir: wakeDir }).findings,
    ).toEqual([]);
    const withKey = tenantsYaml(
      [tenant('dev', ', wake: {}')],
      '  kmsKeyArn: arn:aws:kms:eu-west-1:123456789012:key/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0\n',
    );
    expect(
      nagFindings(parseTenantsConfig(withKey), { bundleDir, wakeBundleDir: wakeDir }).findings,
    ).toEqual([]);
  });
});

describe('wake config validation', () => {
  it.each([
    [tenant('dev', ', wake: true'), /tenants\[0\] \(dev\): wake: must be false or a mapping/],
    [tenant('dev', ', wake: {scheduleMinutes: 0}'), /wake/],
    [
      tenant('dev', ', wake: {}, budget: {timeoutSeconds: 50}'),
      /budget.timeoutSeconds: a woken tenant follows for 30 s/,
    ],
  ])('refuses %s', (entry, message) => {
    expect(() => parseTenantsConfig(tenantsYaml([entry]))).toThrow(TenantsConfigError);
    expect(() => parseTenantsConfig(tenantsYaml([entry]))).toThrow(message);
  });

  it('refuses more woken tenants than the wake function environment holds', () => {
    const many = Array.from({ length: 200 }, (_, i) => tenant(`tenant-number-${i}`));
    expect(() =>
      parseTenantsConfig(tenantsYaml(many, '  wake: {}\n  maxReservedConcurrency: 1000\n')),
    ).toThrow(/too many woken tenants for one wake function/);
  });
});
