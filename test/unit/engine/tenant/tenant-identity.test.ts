/**
 * The tenant cluster's identity (uid of kube-system): read as the pass's first tenant request,
 * recorded on the first pass, and a different one stops the pass unless accepted exactly.
 */
import { describe, expect, it } from '@jest/globals';
import {
  ClusterUnreachableError,
  PassError,
  TenantClusterChangedError,
} from '../../../../lib/engine/errors.js';
import { TenantClusterKeys } from '../../../../lib/engine/names/metadata.js';
import {
  checkTenantClusterId,
  readTenantClusterId,
} from '../../../../lib/engine/tenant/tenant-identity.js';
import {
  ClusterError,
  type ClusterErrorReason,
  type KubeObject,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { TENANT, tenantCluster } from '../support.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const kubeSystem = (uid: string): KubeObject => ({
  ...NAMESPACE,
  metadata: { name: 'kube-system', uid },
});

describe('readTenantClusterId', () => {
  it('is the uid of kube-system', async () => {
    const tenantApi = new MemoryCluster('tenant').seed(kubeSystem('ks-uid-1'));
    expect(await readTenantClusterId(tenantApi)).toBe('ks-uid-1');
    expect(tenantApi.calls).toMatchObject([
      { method: 'get', kind: 'Namespace', namespace: undefined, name: 'kube-system' },
    ]);
  });

  it('is undefined without a kube-system namespace', async () => {
    expect(await readTenantClusterId(new MemoryCluster('tenant'))).toBeUndefined();
  });

  const failing = (reason: ClusterErrorReason) =>
    new MemoryCluster('tenant').failWhen(
      () => new ClusterError(reason, `${reason} happened`, { status: 500 }),
    );

  it('a Transport failure means the tenant cluster is unreachable', async () => {
    const error = await readTenantClusterId(failing('Transport')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterUnreachableError);
    expect((error as ClusterUnreachableError).role).toBe('tenant');
    expect((error as Error).cause).toBeInstanceOf(ClusterError);
  });

  it('NotFound (no namespaces served) is no identity', async () => {
    expect(await readTenantClusterId(failing('NotFound'))).toBeUndefined();
  });

  it('Forbidden is a PassError that names the grant', async () => {
    const error = await readTenantClusterId(failing('Forbidden')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassError);
    expect(error).not.toBeInstanceOf(ClusterUnreachableError);
    expect((error as Error).message).toContain('namespace kube-system');
    expect((error as Error).message).toContain('Forbidden happened');
    expect((error as Error).message).toMatch(/grant the tenant identity `get` on namespaces/);
  });

  it('another failure is a PassError without the grant hint', async () => {
    const error = await readTenantClusterId(failing('Unauthorized')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassError);
    expect((error as Error).message).not.toMatch(/grant/);
  });
});

describe('checkTenantClusterId', () => {
  const accepting = (id: string): KubeObject => {
    const tc = tenantCluster();
    tc.metadata.annotations = { [TenantClusterKeys.AcceptTenantClusterId]: id };
    return tc;
  };
  const cases: Array<{
    name: string;
    tenantCluster?: KubeObject;
    recorded: string | undefined;
    observed: string | undefined;
    expected: string | undefined;
  }> = [
    { name: 'first record', recorded: undefined, observed: 'id-1', expected: 'id-1' },
    { name: 'same identity', recorded: 'id-1', observed: 'id-1', expected: 'id-1' },
    {
      name: 'no identity observed keeps the recorded one',
      recorded: 'id-1',
      observed: undefined,
      expected: 'id-1',
    },
    { name: 'nothing anywhere', recorded: undefined, observed: undefined, expected: undefined },
    {
      name: 'an accepted new identity passes',
      tenantCluster: accepting('id-2'),
      recorded: 'id-1',
      observed: 'id-2',
      expected: 'id-2',
    },
  ];
  it.each(cases)('$name', ({ tenantCluster: tc, recorded, observed, expected }) => {
    expect(checkTenantClusterId(TENANT, tc ?? tenantCluster(), recorded, observed)).toBe(expected);
  });

  it.each([
    ['no acceptance', tenantCluster()],
    ['an acceptance of another identity', accepting('id-3')],
    ['an acceptance of the recorded identity', accepting('id-1')],
  ])('a different identity with %s throws, naming both ids and the annotation', (_, tc) => {
    let error: unknown;
    try {
      checkTenantClusterId(TENANT, tc, 'id-1', 'id-2');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TenantClusterChangedError);
    const changed = error as TenantClusterChangedError;
    expect(changed).toMatchObject({ tenant: TENANT, recordedId: 'id-1', observedId: 'id-2' });
    expect(changed.message).toContain('id-1');
    expect(changed.message).toContain(
      `kubectl annotate tenantcluster ${TENANT} ${TenantClusterKeys.AcceptTenantClusterId}=id-2`,
    );
  });
});
