/**
 * The fault matrix, connections: a connection cut during the tenant listing, the host listing,
 * the applies and the garbage collection; a stalled tenant and a stalled host under a pass
 * deadline. Every row proves from host snapshots that no write or delete fell outside the expected
 * set, and that a clean pass then converges.
 */
import { describe, expect, it } from '@jest/globals';
import { useApis } from '../engine/support.js';
import { Faults } from '../support/fault-proxy.js';
import { hostConfigMaps, matrixRow, TENANT_CONFIGMAP_LIST, useProxies } from './matrix.js';
import { scenario } from './support.js';

const apis = useApis();
const proxies = useProxies();
const GC_SKIPPED = 'ConfigMap: the tenant listing failed, so its garbage collection was skipped';

describe('fault matrix: connections', () => {
  it('connection cut during the tenant listing: incomplete, no GC, no delete', async () => {
    const s = await scenario(apis(), 'cut-tl');
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'connection cut during the tenant listing',
        budget: { pageSize: 2 },
        tenantRules: [
          {
            match: { method: 'GET', path: TENANT_CONFIGMAP_LIST, query: { continue: true } },
            times: 1,
            action: { kind: 'cut', afterBytes: 64 },
          },
        ],
      },
      (run) => {
        expect(run.result?.complete).toBe(false);
        expect(run.result?.incompleteReason).toContain(GC_SKIPPED);
        expect(run.result?.errors).toEqual([
          expect.objectContaining({
            reason: 'Transport',
            message: expect.stringContaining('listing tenant ConfigMap objects failed'),
          }),
        ]);
        expect(run.result?.counts.Delete).toBe(0);
      },
    );
  });

  it('connection cut during the host listing: incomplete, no write at all', async () => {
    const s = await scenario(apis(), 'cut-hl');
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'connection cut during the host listing',
        hostRules: [
          {
            match: { method: 'GET', path: hostConfigMaps(s) },
            times: 1,
            action: { kind: 'cut', afterBytes: 32 },
          },
        ],
      },
      (run) => {
        expect(run.result?.incompleteReason).toContain('ConfigMap: the host listing failed');
        expect(run.result?.requests.host.writes).toBe(0);
      },
    );
  });

  it('connection cut during the applies: that write is an error, the rest goes on', async () => {
    const s = await scenario(apis(), 'cut-ap');
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'connection cut during the applies',
        hostRules: [
          // The create reaches the server; its answer is cut: the pass cannot know it landed.
          {
            match: { method: 'POST', path: hostConfigMaps(s) },
            times: 1,
            action: { kind: 'cut', afterBytes: 0 },
          },
          // This update never reaches the server.
          {
            match: { method: 'PUT', path: hostConfigMaps(s) },
            times: 1,
            action: { kind: 'reset' },
          },
        ],
      },
      (run) => {
        const failed = run.result?.decisions.filter((d) => d.error !== undefined) ?? [];
        expect(failed.map((d) => d.action).sort()).toEqual(['Create', 'Update']);
        expect(run.result?.errors.map((e) => e.reason)).toEqual(['Transport', 'Transport']);
        expect(run.result?.counts).toMatchObject({ Delete: 2 });
      },
    );
  });

  it('connection cut during the garbage collection: the delete is an error, the next pass finishes it', async () => {
    const s = await scenario(apis(), 'cut-gc');
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'connection cut during GC',
        hostRules: [
          {
            match: { method: 'DELETE', path: hostConfigMaps(s) },
            times: 1,
            action: { kind: 'reset' },
          },
          {
            match: { method: 'DELETE', path: hostConfigMaps(s) },
            times: 1,
            action: { kind: 'cut', afterBytes: 0 },
          },
        ],
      },
      (run) => {
        const deletes = run.result?.decisions.filter((d) => d.action === 'Delete') ?? [];
        expect(deletes).toHaveLength(2);
        expect(deletes.every((d) => d.error?.startsWith('cannot reach'))).toBe(true);
      },
    );
  });

  it('a stalled tenant: the pass ends by its deadline plus the reserve, naming the tenant', async () => {
    const s = await scenario(apis(), 'stall-t');
    const { tenant } = proxies();
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'stalled tenant apiserver',
        budget: { deadline: Date.now() + 3_000 + 2_000 },
        tenantRules: [{ match: { path: TENANT_CONFIGMAP_LIST }, action: Faults.stall() }],
      },
      (run) => {
        expect(run.ms).toBeLessThan(7_500);
        expect(run.result?.incompleteReason).toContain(`the tenant cluster stalled (${tenant.url}`);
        expect(run.result?.requests.host.writes).toBe(0);
      },
    );
  });

  it('a stalled host: writes, status and Events bounded; the pass names the host', async () => {
    const s = await scenario(apis(), 'stall-h');
    const { host } = proxies();
    const t0 = Date.now();
    await matrixRow(
      s,
      proxies(),
      {
        fault: 'stalled host apiserver',
        // Room for the pass's reads on a loaded machine: the stall must be met at the host writes.
        budget: { deadline: t0 + 6_000, reportReserveMs: 1_500 },
        hostRules: [{ match: { method: /^(POST|PUT|PATCH|DELETE)$/ }, action: Faults.stall() }],
      },
      (run) => {
        expect(Date.now() - t0).toBeLessThan(6_000 + 1_500 + 1_000);
        expect(run.result?.incompleteReason).toContain(`the host cluster stalled (${host.url}`);
        expect(run.result?.errors.some((e) => e.kind === 'TenantCluster')).toBe(true);
      },
    );
  });
});
