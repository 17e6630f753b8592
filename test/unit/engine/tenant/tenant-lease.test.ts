/**
 * One pass per tenant at a time: the tenant's Lease is taken at the pass's first write (never by
 * a pass that writes nothing, never by a dry run), released at its end; a pass that finds it held
 * by a live holder writes nothing (copies, status, Events) and says who holds it since when; an
 * expired lease is taken over with its resourceVersion; a lease that cannot be taken for another
 * reason leaves the pass unprotected, with a warning.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import { LEASE, leaseName } from '../../../../lib/engine/tenant/tenant-lease.js';
import { ClusterError, type KubeObject } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hostCopyOf, RecordingSink, TENANT } from '../support.js';

const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

function heldLease(
  renewMs: number,
  seconds: number,
  holder = 'tenantplane pass other',
): KubeObject {
  return {
    ...LEASE,
    metadata: { name: leaseName(TENANT), namespace: HOST_NS },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: seconds,
      acquireTime: micro(renewMs),
      renewTime: micro(renewMs),
      leaseTransitions: 3,
    },
  };
}

const leaseCalls = (api: { calls: { kind: string; method: string }[] }) =>
  api.calls.filter((c) => c.kind === 'Lease').map((c) => c.method);

describe('the tenant lease', () => {
  it('is taken at the first write, released at the end, and kept out of `requests`', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, lease: true });
    expect(result.counts.Create).toBe(1);
    expect(leaseCalls(hostApi)).toEqual(['create', 'delete']);
    const methods = hostApi.calls.map((c) => `${c.method} ${c.kind}`);
    expect(methods.indexOf('create Lease')).toBeLessThan(methods.indexOf('create ConfigMap'));
    expect(result.requests.host.writes).toBe(1);
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))).toBeUndefined();
  });

  it('is never taken by a pass that writes nothing, nor by a dry run', async () => {
    const source = cm('a', 'x');
    const steady = clusters([source], [hostCopyOf(source)], { toHost: [CONFIGMAP] });
    // The first pass records its status (under the lease); the next one has nothing to write.
    await runPass({ tenant: TENANT, ...steady, lease: true });
    steady.hostApi.calls.length = 0;
    await runPass({ tenant: TENANT, ...steady, lease: true });
    expect(steady.hostApi.calls.filter((c) => c.method !== 'get' && c.method !== 'list')).toEqual(
      [],
    );
    expect(leaseCalls(steady.hostApi)).toEqual([]);
    const dry = clusters([cm('a', 'new')], [], { toHost: [CONFIGMAP] });
    const planned = await runPass({ tenant: TENANT, ...dry, lease: true, dryRun: true });
    expect(planned.counts.Create).toBe(1);
    expect(leaseCalls(dry.hostApi)).toEqual([]);
  });

  it('held by a live pass: no writes at all, and the result says who holds it since when', async () => {
    const since = Date.now() - 5_000;
    const { tenantApi, hostApi } = clusters(
      [cm('a', 'x')],
      [heldLease(since, 600), hostCopyOf(cm('a', 'gone'))],
      { toHost: [CONFIGMAP] },
    );
    const sink = new RecordingSink();
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      sinks: [sink],
      lease: true,
    });
    expect(hostApi.calls.filter((c) => c.method !== 'get' && c.method !== 'list')).toEqual([
      expect.objectContaining({ method: 'create', kind: 'Lease' }),
    ]);
    expect(result).toMatchObject({
      complete: false,
      counts: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
      decisions: [],
      errors: [],
      statusWritten: false,
      leaseHeld: {
        lease: `${HOST_NS}/${leaseName(TENANT)}`,
        holder: 'tenantplane pass other',
        since: micro(since),
      },
    });
    expect(result.incompleteReason).toMatch(
      /^another pass holds the tenant's lease tenant-dev\/tenantplane-dev \(holder tenantplane pass other, since .*\); this pass made no writes$/,
    );
    expect(sink.results).toEqual([result]);
    expect(hostApi.peek(LEASE, HOST_NS, leaseName(TENANT))?.spec).toMatchObject({
      holderIdentity: 'tenantplane pass other',
    });
  });

  it('an expired lease (its holder crashed) is taken over with its resourceVersion', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [heldLease(Date.now() - 120_000, 60)], {
      toHost: [CONFIGMAP],
    });
    let taken: KubeObject | undefined;
    const result = await runPass({
      tenant: TENANT,
      tenantApi,
      hostApi,
      lease: true,
      sinks: [
        {
          decision: () => {
            taken ??= hostApi.peek(LEASE, HOST_NS, leaseName(TENANT));
          },
          passFinished: async () => {},
        },
      ],
    });
    expect(result.complete).toBe(true);
    expect(leaseCalls(hostApi)).toEqual(['create', 'get', 'update', 'delete']);
    expect(taken?.spec).toMatchObject({ leaseTransitions: 4 });
    expect(taken?.spec).toMatchObject({
      holderIdentity: expect.stringMatching(/^tenantplane pass /),
    });
  });

  it('two passes at once: one writes, the other writes nothing and names the holder', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x'), cm('a', 'y')], [], {
      toHost: [CONFIGMAP],
    });
    const [a, b] = await Promise.all([
      runPass({ tenant: TENANT, tenantApi, hostApi, lease: true, passId: 'pass-a' }),
      runPass({ tenant: TENANT, tenantApi, hostApi, lease: true, passId: 'pass-b' }),
    ]);
    const held = [a, b].filter((r) => r.leaseHeld);
    const ran = [a, b].filter((r) => !r.leaseHeld);
    expect(held).toHaveLength(1);
    expect(ran[0]?.counts.Create).toBe(2);
    expect(held[0]?.leaseHeld?.holder).toContain(`tenantplane pass ${ran[0]?.passId}`);
    expect(hostApi.callsOf('create').filter((c) => c.kind === 'ConfigMap')).toHaveLength(2);
  });

  it('a lease that cannot be taken (no RBAC grant yet) leaves the pass unprotected, with a warning', async () => {
    const { tenantApi, hostApi } = clusters([cm('a', 'x')], [], { toHost: [CONFIGMAP] });
    hostApi.failWhen((c) =>
      c.kind === 'Lease'
        ? new ClusterError('Forbidden', 'leases is forbidden', { status: 403 })
        : undefined,
    );
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, lease: true });
    expect(result.counts.Create).toBe(1);
    expect(result.warnings).toEqual([
      {
        reason: 'LeaseUnavailable',
        message: expect.stringMatching(
          /could not take the tenant's lease .* ran without it: leases is forbidden/,
        ),
      },
    ]);
  });
});
