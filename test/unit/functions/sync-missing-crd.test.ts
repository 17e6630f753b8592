/**
 * The sync function on a host without the TenantCluster CRD: the invocation fails saying the CRD
 * is missing and how to install it (as `tenantplane sync` does), not that the TenantCluster is;
 * with the CRD installed, a missing TenantCluster is still reported as one.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { createHandler } from '../../../functions/sync/handler.js';
import {
  missingCrdError,
  TenantClusterCrdMissingError,
} from '../../../lib/adapters/kube/tenant-cluster-crd.js';
import { TenantClusterNotFoundError } from '../../../lib/engine/index.js';
import {
  ClusterError,
  type KubeconfigSource,
  type KubeconfigText,
  TENANT_CLUSTER,
} from '../../../lib/ports/index.js';
import { CONFIGMAP, cm } from '../engine/support.js';
import { MemoryCluster } from '../fakes/memory-cluster.js';

const ENV = {
  TENANT: 'dev',
  TENANT_KUBECONFIG_SECRET_ID: 'tenantplane/tenants/dev/kubeconfig',
  HOST_KUBECONFIG_SECRET_ID: 'tenantplane/host/kubeconfig',
};

const source: KubeconfigSource = {
  async load(role): Promise<KubeconfigText> {
    return {
      text: `kubeconfig-of-${role}`,
      origin: role === 'host' ? ENV.HOST_KUBECONFIG_SECRET_ID : ENV.TENANT_KUBECONFIG_SECRET_ID,
    };
  },
};

const context = {
  functionName: 'tenantplane-sync-dev',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

let spies: Array<{ mockRestore(): void }>;
beforeEach(() => {
  spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true),
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true),
  ];
});
afterEach(() => {
  for (const spy of spies) spy.mockRestore();
});

function handlerWithHost(hostApi: MemoryCluster) {
  const tenantApi = new MemoryCluster('tenant').seed(cm('default', 'app'));
  return createHandler({
    env: ENV,
    kubeconfigSource: () => source,
    createClusterApi: (kubeconfig) => (kubeconfig.origin.includes('host') ? hostApi : tenantApi),
    createSinks: () => [],
    clock: { now: () => 1_750_000_000_000 },
    newPassId: () => 'pass-1',
  });
}

describe('sync function: a host without the TenantCluster CRD', () => {
  it('fails saying the CRD is missing, with the manifest to apply', async () => {
    const host = new MemoryCluster('host', { installedKinds: [CONFIGMAP] });
    await expect(handlerWithHost(host)({ tenant: 'dev' }, context)).rejects.toThrow(
      'the host cluster does not serve TenantCluster (tenantplane.io/v1alpha1): the CRD tenantclusters.tenantplane.io is not installed; install it on the host with "kubectl apply -f deploy/crds/tenantclusters.tenantplane.io.yaml"',
    );
    expect(host.requestCount().writes).toBe(0);
  });

  it('with the CRD installed, still reports the TenantCluster itself as missing', async () => {
    const host = new MemoryCluster('host', { installedKinds: [CONFIGMAP, TENANT_CLUSTER] });
    await expect(handlerWithHost(host)({ tenant: 'dev' }, context)).rejects.toThrow(
      'TenantCluster "dev" does not exist on the host cluster',
    );
  });
});

describe('missingCrdError', () => {
  const noCrd = new MemoryCluster('host', { installedKinds: [] });
  const withCrd = new MemoryCluster('host', { installedKinds: [TENANT_CLUSTER] });
  const notFound = new TenantClusterNotFoundError('dev');
  it.each([
    ['a missing TenantCluster, no CRD', noCrd, notFound, true],
    [
      'a NotFound it was caused by, no CRD',
      noCrd,
      new Error('x', { cause: new ClusterError('NotFound', 'gone') }),
      true,
    ],
    ['a missing TenantCluster, CRD installed', withCrd, notFound, false],
    ['another failure, no CRD', noCrd, new ClusterError('Forbidden', 'no'), false],
  ])('%s', async (_, host, error, missing) => {
    const found = await missingCrdError(host, error);
    expect(found instanceof TenantClusterCrdMissingError).toBe(missing);
    if (found) expect(found.cause).toBe(error);
  });
});
