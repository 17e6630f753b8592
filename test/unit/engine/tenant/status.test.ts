/**
 * `TenantCluster.status`, typed: the one reader (tolerant of anything recorded) and the one patch
 * builder and writer.
 */
import { describe, expect, it } from '@jest/globals';
import {
  patchTenantClusterStatus,
  readTenantClusterStatus,
  statusPatch,
} from '../../../../lib/engine/tenant/status.js';
import { TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, HOST_NS, TENANT, tenantCluster } from '../support.js';

const EMPTY = {
  syncedKinds: [],
  hostNamespaces: [],
  resume: {},
  retries: [],
  retryOverflow: [],
  conditions: [],
};

const GROUP = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  op: 'apply',
  reason: 'Forbidden',
  failures: 2,
  retryAfter: '2030-01-01T00:00:00.000Z',
};
const POINT = { resourceVersion: '7', at: 'a', fullAt: 'f', policy: 'p' };
const RETRY = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  op: 'apply',
  object: 'default/a',
  version: 'd1',
  reason: 'Invalid',
  failures: 1,
  retryAfter: '2030-01-01T00:10:00.000Z',
};
const READY = {
  type: 'Ready',
  status: 'True',
  reason: 'Converged',
  message: 'ok',
  lastTransitionTime: '2030-01-01T00:00:00Z',
};

describe('readTenantClusterStatus', () => {
  it.each([
    { name: 'no TenantCluster', tenantCluster: undefined },
    { name: 'no status', tenantCluster: { status: undefined } },
    { name: 'a status that is not an object', tenantCluster: { status: ['x'] } },
    {
      name: 'every field garbled',
      tenantCluster: {
        status: {
          syncedKinds: 'ConfigMap',
          hostNamespaces: { a: 1 },
          tenantClusterId: 7,
          resume: ['v1/ConfigMap'],
          retries: { a: 1 },
          cleanup: { copiesLeft: -1 },
          observedGeneration: '3',
          conditions: 'Ready',
          lastPass: 'yesterday',
        },
      },
    },
  ])('$name reads as empty', ({ tenantCluster: object }) => {
    expect(readTenantClusterStatus(object)).toEqual(EMPTY);
  });

  it('keeps every well-formed field and drops the malformed entries', () => {
    const read = readTenantClusterStatus({
      status: {
        syncedKinds: [{ ...CONFIGMAP, extra: true }, { apiVersion: 'v1' }, null],
        hostNamespaces: [HOST_NS, 3],
        tenantClusterId: 'ks-1',
        resume: { 'v1/ConfigMap': POINT, 'v1/Secret': { resourceVersion: 1 } },
        retries: [RETRY, { ...RETRY, op: 'patch' }],
        retryOverflow: [{ ...GROUP, objects: ['d1', 2] }, { kind: 'ConfigMap' }],
        cleanup: { copiesLeft: 2 },
        observedGeneration: 4,
        conditions: [READY, { type: 'Degraded', status: 'Maybe' }],
        lastPass: { passId: 'p', complete: true, errors: ['e', 1], path: 'resumed', durationMs: 5 },
      },
    });
    expect(read).toEqual({
      syncedKinds: [CONFIGMAP],
      hostNamespaces: [HOST_NS],
      tenantClusterId: 'ks-1',
      resume: { 'v1/ConfigMap': POINT },
      retries: [RETRY],
      retryOverflow: [{ ...GROUP, objects: ['d1'] }],
      cleanup: { copiesLeft: 2 },
      observedGeneration: 4,
      conditions: [READY],
      lastPass: { passId: 'p', complete: true, errors: ['e'], path: 'resumed', durationMs: 5 },
    });
  });

  it('reads a TenantCluster object as it is listed', () => {
    const read = readTenantClusterStatus(tenantCluster({ toHost: [CONFIGMAP] }));
    expect(read).toEqual({ ...EMPTY, syncedKinds: [CONFIGMAP], hostNamespaces: [HOST_NS] });
  });
});

describe('readTenantClusterStatus: status.lastPass', () => {
  it('keeps the well-formed fields; null stands for a removed reason, a missing count for 0', () => {
    const lastPass = {
      incompleteReason: null,
      skipDigest: 5,
      counts: { create: 1, skip: 'x' },
      failed: { delete: 2 },
    };
    expect(readTenantClusterStatus({ status: { lastPass } }).lastPass).toEqual({
      incompleteReason: null,
      counts: { create: 1, update: 0, delete: 0, skip: 0, alreadyGone: 0 },
      failed: { create: 0, update: 0, delete: 2 },
    });
  });
});

describe('statusPatch', () => {
  it('merges the parts, a later part winning a field, and leaves out what is unset', () => {
    expect(
      statusPatch({ cleanup: { copiesLeft: 1 }, tenantClusterId: null }, undefined, {
        cleanup: { copiesLeft: 0 },
        syncedKinds: undefined,
      }),
    ).toEqual({ cleanup: { copiesLeft: 0 }, tenantClusterId: null });
  });

  it('is undefined when nothing is to be written', () => {
    expect(statusPatch()).toBeUndefined();
    expect(statusPatch(undefined, {}, { retries: undefined })).toBeUndefined();
  });
});

describe('patchTenantClusterStatus', () => {
  it('writes one merge patch of the status, and nothing when it is empty', async () => {
    const hostApi = new MemoryCluster('host').seed(tenantCluster());
    expect(await patchTenantClusterStatus(hostApi, TENANT, undefined, {})).toBe(false);
    expect(hostApi.callsOf('patchStatus')).toEqual([]);
    expect(await patchTenantClusterStatus(hostApi, TENANT, { cleanup: { copiesLeft: 3 } })).toBe(
      true,
    );
    expect(hostApi.callsOf('patchStatus')).toHaveLength(1);
    const stored = hostApi.peek(TENANT_CLUSTER, undefined, TENANT);
    expect(readTenantClusterStatus(stored).cleanup).toEqual({ copiesLeft: 3 });
  });
});
