/**
 * What a pass reports: status.lastPass on the TenantCluster, the decisions and the end of the pass
 * delivered to sinks, request counts, no Secret data in decisions or errors, and a paused policy.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { ClusterError, type DecisionSink, TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  hostCopyOf,
  RecordingSink,
  SECRET,
  secret,
  TENANT,
} from '../support.js';
import { many } from './support.js';

describe('status, sinks and results', () => {
  it('writes status.lastPass in the shape of the CRD', async () => {
    let now = Date.parse('2025-03-01T10:00:00Z');
    const clock = { now: () => (now += 250) };
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'create' && c.name === 'a-x-default-x-dev'
        ? new ClusterError('Invalid', 'nope')
        : undefined,
    );
    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      clock,
      passId: 'pass-1',
    });
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status;
    // The clock is read once more than the start and the end: the failure's back-off time.
    expect(status).toMatchObject({
      lastPass: {
        passId: 'pass-1',
        startedAt: '2025-03-01T10:00:00.250Z',
        finishedAt: '2025-03-01T10:00:00.750Z',
        durationMs: 500,
        complete: true,
        // The failed create is counted apart from the creates made.
        counts: { create: 0, update: 0, delete: 0, skip: 0, alreadyGone: 0 },
        failed: { create: 1, update: 0, delete: 0 },
        failedCount: 1,
        errorCount: 1,
        errors: ['ConfigMap default/a: nope (Invalid)'],
      },
    });
    expect(result.passId).toBe('pass-1');
  });

  it('clears an old incompleteReason and caps the error list at 20', async () => {
    const { tenantApi, hostApi } = clusters(many(25), [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.method === 'create' ? new ClusterError('Invalid', 'rejected') : undefined,
    );
    await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { maxWrites: 1 } });
    expect(hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status).toMatchObject({
      lastPass: { complete: false, incompleteReason: expect.stringMatching(/write budget/) },
    });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as
      | { lastPass: Record<string, unknown> }
      | undefined;
    const lastPass = status?.lastPass ?? {};
    expect(lastPass).not.toHaveProperty('incompleteReason');
    expect(lastPass.errorCount).toBe(25);
    expect(lastPass.errors).toHaveLength(20);
    expect(result.errors).toHaveLength(25);
  });

  it('a status write failure is reported, not thrown', async () => {
    const { tenantApi, hostApi } = clusters([], []);
    hostApi.failWhen((c) =>
      c.method === 'patchStatus' ? new ClusterError('Forbidden', 'no status') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    expect(result.errors).toEqual([
      {
        kind: 'TenantCluster',
        message: 'could not write status.lastPass: no status',
        reason: 'Forbidden',
      },
    ]);
  });

  it('delivers decisions as they are made, then passFinished once; a throwing sink changes nothing', async () => {
    const order: string[] = [];
    const sink: DecisionSink = {
      decision: (d) => order.push(`decision ${d.tenantRef.name}`),
      passFinished: async () => {
        order.push('finished');
      },
    };
    const broken: DecisionSink = {
      decision: () => {
        throw new Error('sink down');
      },
      passFinished: async () => {
        throw new Error('sink down');
      },
    };
    const { tenantApi, hostApi } = clusters([cm('default', 'a'), cm('default', 'b')], [], {
      toHost: [CONFIGMAP],
    });
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      sinks: [broken, sink],
      budget: { concurrency: 1 },
    });
    expect(order).toEqual(['decision a', 'decision b', 'finished']);
    expect(result.counts.Create).toBe(2);
    expect(result.errors).toEqual([]);
  });

  it('counts requests per cluster', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    // host: get TenantCluster + list ConfigMaps + create; tenant: the identity GET (namespace
    // kube-system) + one list.
    expect(result.requests).toEqual({
      tenant: { reads: 2, writes: 0 },
      host: { reads: 2, writes: 1 },
    });
  });

  it('never puts Secret data into decisions or errors', async () => {
    const { tenantApi, hostApi } = clusters(
      [secret('default', 'db'), secret('default', 'other')],
      [hostCopyOf({ ...secret('default', 'other'), data: { password: 'b2xk' } })],
      { toHost: [SECRET] },
    );
    hostApi.failWhen((c) =>
      c.method === 'create' ? new ClusterError('Invalid', 'rejected') : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi });
    const text = JSON.stringify({ decisions: result.decisions, errors: result.errors });
    expect(result.decisions).toHaveLength(2);
    expect(text).not.toContain('c3VwZXItc2VjcmV0');
    expect(text).not.toContain('b2xk');
    expect(text).not.toContain('password');
  });

  it('a paused policy makes no decisions, writes nothing and says so', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { paused: true });
    const sink = new RecordingSink();
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, sinks: [sink] });
    expect(result.complete).toBe(true);
    expect(result.decisions).toEqual([]);
    expect(result.note).toMatch(/paused/);
    expect(hostApi.requestCount().writes).toBe(0);
    expect(tenantApi.requestCount().reads).toBe(0);
    expect(sink.results).toEqual([result]);
  });
});
