/**
 * One pass per tenant at a time, on the real clusters. Pass A holds the tenant's Lease while its
 * writes crawl (the fault proxy delays them); `tenantplane sync` started meanwhile exits 3 having
 * written nothing and names A as the holder; the function started meanwhile returns a clean no-op
 * summary saying the same. A crashed holder's lease expires and the next pass takes it over.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantplane } from '../cli/support.js';
import { pass, useApis, waitFor } from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { invokeSync } from './function-support.js';
import {
  expectConverges,
  expectNoWrongfulChange,
  faultedPass,
  proxiedApis,
  recordRow,
  scenario,
} from './support.js';

const clusters = integrationClusters();
const apis = useApis();
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
let hostProxy: FaultProxy;

beforeAll(async () => {
  hostProxy = await FaultProxy.start(clusters.host);
});
afterAll(async () => {
  await hostProxy.close();
});

describe('one pass per tenant at a time', () => {
  it('two passes at once: the second (command or function) writes nothing and names the holder', async () => {
    const s = await scenario(apis(), 'lease-two');
    // A's first copy write crawls for 6 s: A holds the lease all that time.
    hostProxy.setRules({
      match: { method: /^(POST|PUT|DELETE)$/, path: /\/configmaps/ },
      times: 1,
      action: { kind: 'delay', ms: 6_000 },
    });
    const proxied = proxiedApis({ host: hostProxy }, clusters);
    const first = faultedPass(s, proxied);
    const lease = await waitFor('pass A to take the lease', () =>
      s.t.hostApi.get(LEASE, s.t.hostNamespace, `tenantplane-${s.t.name}`),
    );
    const holder = (lease.spec as { holderIdentity: string }).holderIdentity;

    const cli = await tenantplane([
      'sync',
      s.t.name,
      '--tenant-kubeconfig',
      clusters.tenantKubeconfigPath,
      '--host-kubeconfig',
      clusters.hostKubeconfigPath,
    ]);
    expect(cli.code).toBe(3);
    expect(cli.stdout).toContain(
      `another pass holds the tenant's lease ${s.t.hostNamespace}/tenantplane-${s.t.name} (holder ${holder}, since`,
    );
    const fn = await invokeSync({
      tenant: s.t.name,
      kubeconfigs: { tenant: clusters.tenant, host: clusters.host },
      remainingMs: 60_000,
    });
    expect(fn.error).toBeUndefined();
    expect(fn.result).toMatchObject({
      complete: false,
      counts: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
      leaseHeld: { holder, lease: `${s.t.hostNamespace}/tenantplane-${s.t.name}` },
    });

    const a = await first;
    hostProxy.clear();
    await proxied.hostApi.close();
    await proxied.tenantApi.close();
    expect(a.result?.complete).toBe(true);
    expect(a.result?.counts).toMatchObject({ Create: 2, Update: 2, Delete: 2 });
    // Only A's writes (and its lease, now released) changed the host namespace.
    const changes = await expectNoWrongfulChange(s);
    expect(changes.created.filter((k) => !k.startsWith('ConfigMap/new-'))).toEqual([]);
    recordRow('two passes started at once', a, changes);
    expect(
      await s.t.hostApi.get(LEASE, s.t.hostNamespace, `tenantplane-${s.t.name}`),
    ).toBeUndefined();
    await expectConverges(s);
  });

  it("a crashed holder's lease expires: held until then, taken over after", async () => {
    const s = await scenario(apis(), 'lease-crash', { each: 1 });
    const renewedAt = Date.now();
    const now = new Date(renewedAt).toISOString().replace('Z', '000Z');
    await s.t.hostApi.create({
      ...LEASE,
      metadata: { name: `tenantplane-${s.t.name}`, namespace: s.t.hostNamespace },
      spec: {
        holderIdentity: 'a pass that crashed',
        // Long enough that a loaded machine's first (full) pass still meets it held.
        leaseDurationSeconds: 20,
        acquireTime: now,
        renewTime: now,
      },
    });
    const held = await faultedPass(s, { tenantApi: s.t.tenantApi, hostApi: s.t.hostApi });
    expect(held.result?.leaseHeld?.holder).toBe('a pass that crashed');
    expect(held.result?.requests.host.writes).toBe(0);
    // Until it expired, and no longer: the first pass took part of the 20 s already.
    await new Promise((r) => setTimeout(r, Math.max(0, renewedAt + 20_200 - Date.now())));
    const after = await faultedPass(s, { tenantApi: s.t.tenantApi, hostApi: s.t.hostApi });
    expect(after.result?.leaseHeld).toBeUndefined();
    expect(after.result?.complete).toBe(true);
    expect(after.result?.counts).toMatchObject({ Create: 1, Update: 1, Delete: 1 });
    s.expected.add(`Lease/tenantplane-${s.t.name}`);
    await expectNoWrongfulChange(s);
    expect((await pass(s.t)).result.requests.host.writes).toBe(0);
    await expectConverges(s);
  });
});
