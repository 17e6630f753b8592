/**
 * A follow whose tenant watches fail, on the real clusters through the fault proxy (issue 29):
 * each held watch of the tenant is cut mid-stream, answered 410 Gone, or stalled, and a tenant
 * change made meanwhile still reaches the host without any other command; no change is lost: a
 * full two-sided pass afterwards decides nothing the follow did not already converge, and the
 * follow reported the failed watches it answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hostName, runFollow } from '../../../lib/engine/index.js';
import type { PassResult } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  pass,
  tenantConfigMap,
  useApis,
  waitFor,
} from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy, type FaultRule, Faults } from '../support/fault-proxy.js';
import { proxiedApis } from './support.js';

const clusters = integrationClusters();
const apis = useApis();
let tenantProxy: FaultProxy;

beforeAll(async () => {
  tenantProxy = await FaultProxy.start(clusters.tenant);
});

afterAll(async () => {
  await tenantProxy.close();
});

const watches = { query: { watch: 'true' } };
const FAULTS: Array<[string, FaultRule]> = [
  ['cut mid-stream', { match: watches, action: { kind: 'cut', afterBytes: 1 }, times: 3 }],
  ['410 Gone', { match: watches, action: Faults.status(410, 'Expired'), times: 3 }],
  ['stalled', { match: watches, action: Faults.stall(), times: 2 }],
];

describe('a followed tenant whose watches fail', () => {
  it.each(FAULTS)(
    'watch %s: the change made meanwhile converges, and a full pass after it decides nothing',
    async (fault, rule) => {
      const slug = fault.split(' ')[0]?.toLowerCase() ?? 'fault';
      const t = await createTenant(apis(), `ff-${slug.replace(/[^a-z0-9]/g, '')}`);
      const ns = t.vns.a;
      const { tenantApi } = proxiedApis({ tenant: tenantProxy }, clusters);
      const abort = new AbortController();
      const passes: PassResult[] = [];
      const following = runFollow({
        tenant: t.name,
        tenantApi,
        hostApi: t.hostApi,
        signal: abort.signal,
        // Short watches, so a failed one is reopened (and a stalled one timed out) within seconds.
        watchSeconds: 2,
        onPass: (result) => passes.push(result),
      });
      try {
        await waitFor('the first pass', async () => (passes.length > 0 ? true : undefined));
        tenantProxy.setRules(rule);
        // The held watch fails when it is next opened (within its 2 s); the change comes meanwhile.
        await new Promise((r) => setTimeout(r, 2_500));
        await t.tenantApi.create(tenantConfigMap(t, ns, 'during', { fault }));
        const h = hostName('during', ns, t.name);
        await waitFor(
          'the change on the host',
          () => t.hostApi.get(CONFIGMAP, t.hostNamespace, h),
          30_000,
        );
      } finally {
        abort.abort();
        tenantProxy.clear();
      }
      const result = await following;
      await tenantApi.close();
      expect(result.failures).toEqual([]);
      expect(result.gaps).toBeGreaterThan(0);
      // Nothing left that a full two-sided pass would do.
      const full = await pass(t, { full: true });
      expect(full.result.errors).toEqual([]);
      expect(full.result.decisions).toEqual([]);
    },
    60_000,
  );
});
