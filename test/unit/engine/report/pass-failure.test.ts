import { describe, expect, it } from '@jest/globals';
import { ClusterUnreachableError, PassError } from '../../../../lib/engine/errors.js';
import {
  type Condition,
  InvalidPolicyError,
  TenantClusterNotFoundError,
} from '../../../../lib/engine/index.js';
import { conditionTime } from '../../../../lib/engine/report/conditions.js';
import { failureReason, reportPassFailure } from '../../../../lib/engine/report/pass-failure.js';
import { ClusterError, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import type { MemoryCluster } from '../../fakes/memory-cluster.js';
import { clusters, TENANT } from '../support.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const transport = new ClusterError('Transport', 'cannot reach https://127.0.0.1:9: ECONNREFUSED');
const unreachable = new ClusterUnreachableError('tenant', { cause: transport });

function host(generation?: number): MemoryCluster {
  const { hostApi } = clusters([], []);
  if (generation !== undefined) {
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)!;
    hostApi.replace({ ...tc, metadata: { ...tc.metadata, generation } });
  }
  return hostApi;
}

function statusOf(api: MemoryCluster): { observedGeneration?: number; conditions?: Condition[] } {
  return (api.peek(TENANT_CLUSTER, undefined, TENANT)?.status ?? {}) as {
    observedGeneration?: number;
    conditions?: Condition[];
  };
}

describe('failureReason', () => {
  class TenantClusterChangedError extends PassError {
    constructor() {
      super('changed');
      this.name = 'TenantClusterChangedError';
    }
  }
  const cases: Array<{ name: string; error: unknown; reason: string }> = [
    {
      name: 'an unreachable tenant cluster',
      error: unreachable,
      reason: 'TenantClusterUnreachable',
    },
    {
      name: 'an invalid policy',
      error: new InvalidPolicyError(TENANT, ['spec.x: bad']),
      reason: 'InvalidPolicy',
    },
    {
      name: 'another PassError, by its name',
      error: new TenantClusterChangedError(),
      reason: 'TenantClusterChanged',
    },
    { name: 'the base PassError', error: new PassError('could not read'), reason: 'PassFailed' },
    { name: 'anything else', error: new TypeError('oops'), reason: 'PassFailed' },
    { name: 'not even an Error', error: 'text', reason: 'PassFailed' },
  ];
  it.each(cases)('$name -> $reason', ({ error, reason }) => {
    expect(failureReason(error)).toBe(reason);
  });
});

describe('reportPassFailure', () => {
  it('makes Ready False and Degraded True with a reason, the message and observedGeneration', async () => {
    const hostApi = host(4);
    const written = await reportPassFailure(hostApi, TENANT, unreachable, {
      clock: { now: () => T0 },
    });
    expect(written).toBe(true);
    const message =
      'the pass failed: the tenant cluster is unreachable: cannot reach https://127.0.0.1:9: ECONNREFUSED';
    const status = statusOf(hostApi);
    expect({
      observedGeneration: status.observedGeneration,
      conditions: status.conditions,
    }).toEqual({
      observedGeneration: 4,
      conditions: ['Ready', 'Degraded'].map((type) => ({
        type,
        status: type === 'Ready' ? 'False' : 'True',
        reason: 'TenantClusterUnreachable',
        message,
        observedGeneration: 4,
        lastTransitionTime: conditionTime(T0),
      })),
    });
  });

  it('the same failure again writes nothing and keeps lastTransitionTime', async () => {
    const hostApi = host(1);
    await reportPassFailure(hostApi, TENANT, unreachable, { clock: { now: () => T0 } });
    const before = hostApi.requestCount().writes;
    const again = await reportPassFailure(hostApi, TENANT, unreachable, {
      clock: { now: () => T0 + 60_000 },
    });
    expect(again).toBe(false);
    expect(hostApi.requestCount().writes).toBe(before);
    expect(statusOf(hostApi).conditions?.[0]?.lastTransitionTime).toBe(conditionTime(T0));
  });

  it('keeps status.lastPass (a merge patch of conditions and observedGeneration only)', async () => {
    const hostApi = host();
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)!;
    hostApi.replace({ ...tc, status: { lastPass: { passId: 'earlier' } } });
    await reportPassFailure(hostApi, TENANT, new InvalidPolicyError(TENANT, ['spec.toHost: bad']));
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as Record<
      string,
      unknown
    >;
    expect(status.lastPass).toEqual({ passId: 'earlier' });
    expect(status).not.toHaveProperty('observedGeneration');
    expect((status.conditions as Condition[])[0]).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'InvalidPolicy',
    });
  });

  const silent: Array<{ name: string; error: unknown; dryRun?: boolean }> = [
    { name: 'a dry run', error: unreachable, dryRun: true },
    { name: 'a missing TenantCluster', error: new TenantClusterNotFoundError(TENANT) },
    {
      name: 'an unreachable host',
      error: new ClusterUnreachableError('host', { cause: transport }),
    },
  ];
  it.each(silent)('$name: no request at all', async ({ error, dryRun }) => {
    const hostApi = host(1);
    expect(await reportPassFailure(hostApi, TENANT, error, { dryRun: dryRun === true })).toBe(
      false,
    );
    expect(hostApi.requestCount()).toEqual({ reads: 0, writes: 0 });
  });

  it('never throws: a failed read or write is swallowed', async () => {
    const denied = new ClusterError('Forbidden', 'no', { status: 403 });
    const getFails = host(1).failWhen((c) => (c.method === 'get' ? denied : undefined));
    expect(await reportPassFailure(getFails, TENANT, unreachable)).toBe(false);
    const patchFails = host(1).failWhen((c) => (c.method === 'patchStatus' ? denied : undefined));
    expect(await reportPassFailure(patchFails, TENANT, unreachable)).toBe(false);
    const gone = host(1);
    gone.remove(TENANT_CLUSTER, undefined, TENANT);
    expect(await reportPassFailure(gone, TENANT, unreachable)).toBe(false);
  });
});
