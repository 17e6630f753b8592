/**
 * A resumed pass whose watch stalls, on the real clusters through the fault proxy: the kind
 * synced nothing, so the pass is not recorded as `resumed` (that would count it as a resume hit
 * in the `ResumeHit` metric and `status.lastPass.path`); it is incomplete, writes no copy, and the
 * next pass lists the kind in full and converges.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { useApis } from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy, Faults } from '../support/fault-proxy.js';
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
let tenantProxy: FaultProxy;

beforeAll(async () => {
  tenantProxy = await FaultProxy.start(clusters.tenant);
});

afterAll(async () => {
  await tenantProxy.close();
});

describe('a stalled resume', () => {
  it('is recorded as a full path with its reason, not as resumed; nothing is written', async () => {
    const s = await scenario(apis(), 'rs-stall');
    const tc = await s.t.hostApi.get(TENANT_CLUSTER, undefined, s.t.name);
    const resume = (tc?.status as { resume?: Record<string, unknown> } | undefined)?.resume;
    expect(resume?.['v1/ConfigMap']).toBeDefined();

    tenantProxy.setRules({
      match: { method: 'GET', query: { watch: true } },
      action: Faults.stall(),
    });
    const proxied = proxiedApis({ tenant: tenantProxy }, clusters);
    const run = await faultedPass(
      s,
      proxied,
      { deadline: Date.now() + 3_000, reportReserveMs: 1_500 },
      { full: false },
    );
    tenantProxy.clear();
    await proxied.tenantApi.close();
    expect(run.failure).toBeUndefined();
    const result = run.result!;
    expect(tenantProxy.log.some((e) => e.action === 'stall')).toBe(true);
    expect(result.complete).toBe(false);
    expect(result.path).toBe('full');
    expect(result.pathReason).toBe('ConfigMap: resuming its watch failed; nothing was synced');
    expect(result.decisions).toEqual([]);
    const after = await s.t.hostApi.get(TENANT_CLUSTER, undefined, s.t.name);
    const lastPass = (after?.status as { lastPass?: { path?: string } } | undefined)?.lastPass;
    expect(lastPass?.path).toBe('full');

    const changes = await expectNoWrongfulChange(s);
    expect(
      [...changes.created, ...changes.changed, ...changes.deleted].filter((k) =>
        k.startsWith('ConfigMap/'),
      ),
    ).toEqual([]);
    recordRow('stalled watch on a resumed pass', run, changes);
    await expectConverges(s);
  });
});
