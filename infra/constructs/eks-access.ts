/**
 * What a tenant whose host (`hostEks`) or tenant cluster (`tenantEks`) is on EKS needs, beside its
 * function: the EKS access entry that maps the function's role to a Kubernetes group (which
 * deploy/rbac binds), `eks:DescribeCluster` on that cluster only, and the environment that tells
 * the function to sign tokens instead of reading a kubeconfig secret. See docs/eks.md.
 */
import { Annotations, Stack, Token } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { SyncEnv } from '../../functions/sync/contract.js';
import type { EksClusterConfig, TenantConfig } from '../config.js';

/** The group deploy/rbac/host-*.yaml binds for a tenant's EKS identity on the host. */
export function hostGroupFor(tenant: string): string {
  return `tenantplane:sync:${tenant}`;
}

/** The group deploy/rbac/tenant-*.yaml binds on a tenant cluster (one tenant per cluster). */
export const TENANT_CLUSTER_GROUP = 'tenantplane:sync';

/**
 * The Kubernetes user name of the access entry: `tenantplane-sync-<tenant>:iam` on the host (a
 * `:` no tenant name has, so it never is another tenant's client-certificate user) and
 * `tenantplane-sync:iam` on a tenant cluster. Audit logs name it.
 */
export function eksUsernameFor(role: 'host' | 'tenant', tenant: string): string {
  return role === 'host' ? `tenantplane-sync-${tenant}:iam` : 'tenantplane-sync:iam';
}

/** The clusters of `tenant` on EKS, by role. */
function eksClusters(
  tenant: TenantConfig,
): { role: 'host' | 'tenant'; cluster: EksClusterConfig }[] {
  return [
    ...(tenant.tenantEks ? [{ role: 'tenant' as const, cluster: tenant.tenantEks }] : []),
    ...(tenant.hostEks ? [{ role: 'host' as const, cluster: tenant.hostEks }] : []),
  ];
}

/** The kubeconfig secrets the function reads: none for a cluster on EKS. */
export function kubeconfigSecretIds(tenant: TenantConfig): string[] {
  return [tenant.tenantSecretId, tenant.hostSecretId].filter(
    (id): id is string => id !== undefined,
  );
}

/** The function's environment for reaching its two clusters. */
export function clusterAccessEnvironment(tenant: TenantConfig): Record<string, string> {
  const env: Record<string, string> = {};
  if (tenant.tenantSecretId) env[SyncEnv.TenantSecretId] = tenant.tenantSecretId;
  if (tenant.tenantEks) {
    env[SyncEnv.TenantEksCluster] = tenant.tenantEks.clusterName;
    env[SyncEnv.TenantEksRegion] = tenant.tenantEks.region;
  }
  if (tenant.hostSecretId) env[SyncEnv.HostSecretId] = tenant.hostSecretId;
  if (tenant.hostEks) {
    env[SyncEnv.HostEksCluster] = tenant.hostEks.clusterName;
    env[SyncEnv.HostEksRegion] = tenant.hostEks.region;
  }
  return env;
}

/** The ARN of an EKS cluster of the stack's account. */
export function eksClusterArn(scope: Construct, cluster: EksClusterConfig): string {
  return Stack.of(scope).formatArn({
    service: 'eks',
    region: cluster.region,
    resource: 'cluster',
    resourceName: cluster.clusterName,
  });
}

/** `eks:DescribeCluster` on the tenant's EKS clusters only (none when it has none). */
export function eksPolicyStatements(scope: Construct, tenant: TenantConfig): iam.PolicyStatement[] {
  const clusters = eksClusters(tenant);
  if (clusters.length === 0) return [];
  return [
    new iam.PolicyStatement({
      sid: 'DescribeOwnEksClusters',
      actions: ['eks:DescribeCluster'],
      resources: clusters.map(({ cluster }) => eksClusterArn(scope, cluster)),
    }),
  ];
}

export interface EksAccessEntriesProps {
  tenant: TenantConfig;
  /** The function's role: the principal of each access entry. */
  role: iam.IRole;
}

/**
 * One `AWS::EKS::AccessEntry` per EKS cluster of the tenant: the function's role, as the user of
 * {@link eksUsernameFor}, in the group deploy/rbac binds. No access policy is associated: the
 * rights are exactly the RBAC of deploy/rbac.
 */
export class EksAccessEntries extends Construct {
  readonly entries: eks.CfnAccessEntry[] = [];

  constructor(scope: Construct, id: string, props: EksAccessEntriesProps) {
    super(scope, id);
    const stackRegion = Stack.of(this).region;
    for (const { role, cluster } of eksClusters(props.tenant)) {
      // An access entry is a resource of the cluster's region: this stack must be there.
      if (!Token.isUnresolved(stackRegion) && stackRegion !== cluster.region)
        Annotations.of(this).addError(
          `tenant ${props.tenant.name}: ${role === 'host' ? 'hostEks' : 'tenantEks'} ${cluster.clusterName} is in ${cluster.region}, but this stack deploys to ${stackRegion}: the access entry must be made in the cluster's region`,
        );
      this.entries.push(
        new eks.CfnAccessEntry(this, role === 'host' ? 'Host' : 'Tenant', {
          clusterName: cluster.clusterName,
          principalArn: props.role.roleArn,
          type: 'STANDARD',
          username: eksUsernameFor(role, props.tenant.name),
          kubernetesGroups: [
            role === 'host' ? hostGroupFor(props.tenant.name) : TENANT_CLUSTER_GROUP,
          ],
        }),
      );
    }
  }
}
