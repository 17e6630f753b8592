/** readTenantCluster: the TenantCluster, or a typed pass error carrying the cause. */
import { describe, expect, it } from '@jest/globals';
import { ClusterUnreachableError, PassError } from '../../../../lib/engine/errors.js';
import { TenantClusterNotFoundError } from '../../../../lib/engine/index.js';
import { readTenantCluster } from '../../../../lib/engine/tenant/tenant-cluster.js';
import { ClusterError, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { TENANT, tenantCluster } from '../support.js';

describe('readTenantCluster', () => {
  it('returns the TenantCluster of that name, with one GET', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster(), tenantCluster({}, 'prod'));
    const object = await readTenantCluster(hostApi, TENANT);
    expect(object).toMatchObject({ ...TENANT_CLUSTER, metadata: { name: TENANT } });
    expect(hostApi.calls).toEqual([
      expect.objectContaining({ method: 'get', kind: 'TenantCluster', name: TENANT }),
    ]);
  });

  it('a TenantCluster that does not exist is TenantClusterNotFoundError', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster({}, 'prod'));
    const error = await readTenantCluster(hostApi, TENANT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TenantClusterNotFoundError);
    expect(error).toMatchObject({ tenant: TENANT });
  });

  const cases: Array<{
    name: string;
    failure: Error;
    expectedType: new (...args: never[]) => PassError;
    expectedName: string;
    expectedMessage: RegExp;
  }> = [
    {
      name: 'NotFound (the CRD is not installed)',
      failure: new ClusterError('NotFound', 'the server could not find the requested resource'),
      expectedType: TenantClusterNotFoundError,
      expectedName: 'TenantClusterNotFoundError',
      expectedMessage: /^TenantCluster "dev" does not exist on the host cluster$/,
    },
    {
      name: 'Transport (no answer at all)',
      failure: new ClusterError('Transport', 'connect ECONNREFUSED 127.0.0.1:6443'),
      expectedType: ClusterUnreachableError,
      expectedName: 'ClusterUnreachableError',
      expectedMessage: /^the host cluster is unreachable: connect ECONNREFUSED/,
    },
    {
      name: 'Forbidden',
      failure: new ClusterError('Forbidden', 'tenantclusters is forbidden'),
      expectedType: PassError,
      expectedName: 'PassError',
      expectedMessage: /^could not read TenantCluster "dev": tenantclusters is forbidden$/,
    },
    {
      name: 'a failure that is not a cluster error',
      failure: new Error('decoder exploded'),
      expectedType: PassError,
      expectedName: 'PassError',
      expectedMessage: /^could not read TenantCluster "dev": decoder exploded$/,
    },
  ];
  it.each(cases)(
    '$name -> $expectedName with cause',
    async ({ failure, expectedType, expectedName, expectedMessage }) => {
      const hostApi = new MemoryCluster('host')
        .seed(tenantCluster())
        .failWhen(() => failure as ClusterError);
      const error = await readTenantCluster(hostApi, TENANT).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(expectedType);
      expect((error as Error).name).toBe(expectedName);
      expect((error as Error).message).toMatch(expectedMessage);
      expect((error as Error).cause).toBe(failure);
    },
  );

  it('a host that is unreachable is reported as the host', async () => {
    const hostApi = new MemoryCluster('host').failWhen(
      () => new ClusterError('Transport', 'timeout'),
    );
    const error = await readTenantCluster(hostApi, TENANT).catch((e: unknown) => e);
    expect(error).toMatchObject({ role: 'host' });
  });
});
