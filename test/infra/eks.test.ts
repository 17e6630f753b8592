/**
 * Tenants on EKS (`hostEks`, `tenantEks`): the config takes exactly one way to each cluster, and
 * the synthesized stack gives the function's role an access entry with the group deploy/rbac
 * binds, DescribeCluster on that cluster only, and no secret read for a cluster on EKS.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { SyncEnv } from '../../functions/sync/contract.js';
import { parseTenantsConfig, TenantsConfigError } from '../../infra/config.js';
import {
  addTenantplane,
  RESOURCES_PER_TENANT,
  RESOURCES_PER_TENANT_STACK,
  tenantsPerStack,
} from '../../infra/stacks.js';
import {
  asArray,
  cdkContext,
  handlerBundleDir,
  hostSecretOf,
  render,
  type Statement,
  synth,
  tenantsYaml,
} from './support.js';

/** How `render` writes the pseudo parameters of an ARN. */
const pseudo = (name: string) => `$\{AWS::${name}}`;
const [P, ACCOUNT, REGION] = [pseudo('Partition'), pseudo('AccountId'), pseudo('Region')];

const EKS_YAML = tenantsYaml([
  // The host on EKS, the tenant cluster from a secret.
  '{name: dev, schedule: "rate(5 minutes)", tenantSecretId: tp/tenants/dev, hostEks: {clusterName: host-prod, region: eu-west-1}}',
  // Both on EKS: no secret at all.
  '{name: qa, schedule: "rate(5 minutes)", tenantEks: {clusterName: qa-tenant, region: eu-west-1}, hostEks: {clusterName: host-prod, region: eu-west-1}}',
  // Both from secrets, as before.
  `{name: staging, schedule: "rate(5 minutes)", tenantSecretId: tp/tenants/staging, hostSecretId: ${hostSecretOf('staging')}}`,
]);

function problems(yaml: string): string[] {
  try {
    parseTenantsConfig(yaml);
  } catch (error) {
    if (error instanceof TenantsConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

describe('config: hostEks and tenantEks', () => {
  it('takes an EKS cluster instead of a secret, for either cluster', () => {
    const config = parseTenantsConfig(EKS_YAML);
    expect(config.tenants[0]!.hostEks).toEqual({ clusterName: 'host-prod', region: 'eu-west-1' });
    expect(config.tenants[0]!.hostSecretId).toBeUndefined();
    expect(config.tenants[1]!.tenantEks).toEqual({ clusterName: 'qa-tenant', region: 'eu-west-1' });
  });

  it('wants exactly one way to each cluster, a valid cluster, and never the host as the tenant', () => {
    expect(
      problems(
        tenantsYaml([
          '{name: a, schedule: rate(1 minute), tenantSecretId: ta, hostSecretId: ha, hostEks: {clusterName: h, region: eu-west-1}}',
          '{name: b, schedule: rate(1 minute), tenantSecretId: tb}',
          '{name: c, schedule: rate(1 minute), tenantSecretId: tc, hostEks: {clusterName: "-bad", region: Europe, zone: a}}',
          '{name: d, schedule: rate(1 minute), tenantEks: {clusterName: h, region: eu-west-1}, hostEks: {clusterName: h, region: eu-west-1}}',
        ]),
      ),
    ).toEqual([
      'tenants[0] (a): hostEks: set hostSecretId or hostEks, not both',
      "tenants[1] (b): hostSecretId: is required (or hostEks: {clusterName, region}, for a host on EKS reached with the function's IAM role)",
      'tenants[2] (c): hostEks.clusterName: must be an EKS cluster name, got "-bad"',
      'tenants[2] (c): hostEks.region: must be an AWS region, got "Europe"',
      'tenants[2] (c): hostEks.zone: unknown field (known: clusterName, region)',
      'tenants[3] (d): tenantEks: must not be the host cluster (hostEks): a pass would copy the host into itself',
    ]);
  });
});

describe('synth: a tenant whose host is on EKS', () => {
  let tenants: Template;
  beforeAll(async () => {
    const { tp, template } = synth(parseTenantsConfig(EKS_YAML), {
      bundleDir: await handlerBundleDir(),
    });
    tenants = template(tp.shards[0]!);
  });

  /** The inline policy statements of a tenant's role. */
  function statementsOf(tenant: string): Statement[] {
    const roles = tenants.findResources('AWS::IAM::Role', {
      Properties: { Description: `tenantplane sync of tenant ${tenant}` },
    });
    const [role] = Object.values(roles) as {
      Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] };
    }[];
    return role!.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement);
  }

  const roleId = (tenant: string) =>
    Object.keys(
      tenants.findResources('AWS::IAM::Role', {
        Properties: { Description: `tenantplane sync of tenant ${tenant}` },
      }),
    )[0]!;

  it('makes an access entry for the function role, in the tenant host group, with no access policy', () => {
    tenants.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'host-prod',
      PrincipalArn: { 'Fn::GetAtt': [roleId('dev'), 'Arn'] },
      Type: 'STANDARD',
      Username: 'tenantplane-sync-dev:iam',
      KubernetesGroups: ['tenantplane:sync:dev'],
      AccessPolicies: Match.absent(),
    });
    tenants.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'qa-tenant',
      PrincipalArn: { 'Fn::GetAtt': [roleId('qa'), 'Arn'] },
      Username: 'tenantplane-sync:iam',
      KubernetesGroups: ['tenantplane:sync'],
    });
    // dev: its host; qa: its host and its tenant cluster; staging: none.
    expect(Object.keys(tenants.findResources('AWS::EKS::AccessEntry'))).toHaveLength(3);
  });

  it('grants DescribeCluster on that cluster only, and reads no secret for it', () => {
    const dev = statementsOf('dev');
    const describe = dev.find((s) => s.Sid === 'DescribeOwnEksClusters')!;
    expect(asArray(describe.Action)).toEqual(['eks:DescribeCluster']);
    expect(asArray(describe.Resource).map(render)).toEqual([
      `arn:${P}:eks:eu-west-1:${ACCOUNT}:cluster/host-prod`,
    ]);
    const secrets = dev.find((s) => s.Sid === 'ReadKubeconfigSecrets')!;
    expect(asArray(secrets.Resource).map(render)).toEqual([
      `arn:${P}:secretsmanager:${REGION}:${ACCOUNT}:secret:tp/tenants/dev-??????`,
    ]);
    // Both clusters on EKS: no Secrets Manager statement at all.
    const qa = statementsOf('qa');
    expect(qa.some((s) => asArray(s.Action).some((a) => a.startsWith('secretsmanager:')))).toBe(
      false,
    );
    expect(
      asArray(qa.find((s) => s.Sid === 'DescribeOwnEksClusters')!.Resource)
        .map(render)
        .sort(),
    ).toEqual([
      `arn:${P}:eks:eu-west-1:${ACCOUNT}:cluster/host-prod`,
      `arn:${P}:eks:eu-west-1:${ACCOUNT}:cluster/qa-tenant`,
    ]);
    // A tenant on secrets only is given no EKS right.
    expect(statementsOf('staging').some((s) => s.Sid === 'DescribeOwnEksClusters')).toBe(false);
  });

  it('tells the function the cluster instead of a secret', () => {
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-dev',
      Environment: {
        Variables: Match.objectLike({
          [SyncEnv.TenantSecretId]: 'tp/tenants/dev',
          [SyncEnv.HostEksCluster]: 'host-prod',
          [SyncEnv.HostEksRegion]: 'eu-west-1',
          [SyncEnv.HostSecretId]: Match.absent(),
        }),
      },
    });
  });

  it('fits a stack of EKS tenants (two entries each) under the CloudFormation limit', () => {
    expect(
      tenantsPerStack() * (RESOURCES_PER_TENANT + 2) + RESOURCES_PER_TENANT_STACK,
    ).toBeLessThan(500);
  });
});

describe('synth: a cluster in another region than the stack', () => {
  it('is refused: the access entry must be made in the cluster region', async () => {
    const app = new App({ context: cdkContext() });
    const tp = addTenantplane(app, {
      config: parseTenantsConfig(EKS_YAML),
      bundleDir: await handlerBundleDir(),
      env: { account: '123456789012', region: 'us-east-1' },
    });
    expect(tp.shards).toHaveLength(1);
    expect(() => app.synth()).toThrow(
      "tenant dev: hostEks host-prod is in eu-west-1, but this stack deploys to us-east-1: the access entry must be made in the cluster's region",
    );
  });
});
