/**
 * Deadlines that hold, measured on the real clusters through the fault proxy:
 * - `tenantplane sync --deadline 10s` against a tenant apiserver that accepts its LIST and never
 *   answers ends within about 12 s (the deadline plus the 2 s reporting reserve), exit 3, with an
 *   incomplete pass that names the stalled server;
 * - the sync function, given 9 s by Lambda with a 4 s safety margin, against a host that stalls
 *   every write (copies, status, Events), returns its summary before the timeout.
 * Neither writes anything outside the expected set, and a clean pass converges afterwards.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantplane } from '../cli/support.js';
import { useApis } from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { FaultProxy, Faults } from '../support/fault-proxy.js';
import { invokeSync } from './function-support.js';
import { expectConverges, expectNoWrongfulChange, recordRow, scenario } from './support.js';

const clusters = integrationClusters();
const apis = useApis();
let tenantProxy: FaultProxy;
let hostProxy: FaultProxy;

beforeAll(async () => {
  tenantProxy = await FaultProxy.start(clusters.tenant);
  hostProxy = await FaultProxy.start(clusters.host);
});

afterAll(async () => {
  await tenantProxy.close();
  await hostProxy.close();
});

describe('deadlines that hold', () => {
  it('`sync --deadline 10s` against a stalled tenant ends within ~12 s, incomplete, naming it', async () => {
    const s = await scenario(apis(), 'dl-cli');
    const dir = await mkdtemp(join(tmpdir(), 'tenantplane-dl-'));
    const tenantFile = join(dir, 'tenant.kubeconfig');
    await writeFile(tenantFile, tenantProxy.kubeconfig().text, { mode: 0o600 });
    tenantProxy.setRules({
      match: { method: 'GET', path: /\/configmaps$/ },
      action: Faults.stall(),
    });
    const t0 = Date.now();
    const run = await tenantplane([
      'sync',
      s.t.name,
      '--tenant-kubeconfig',
      tenantFile,
      '--host-kubeconfig',
      clusters.hostKubeconfigPath,
      '--deadline',
      '10s',
      '-o',
      'json',
    ]);
    const ms = Date.now() - t0;
    tenantProxy.clear();
    expect(run.code).toBe(3);
    // The deadline, the 2 s reserve, and the command's own start (about 1 s).
    expect(ms).toBeLessThan(14_000);
    expect(ms).toBeGreaterThanOrEqual(10_000);
    const record = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.type === 'pass');
    expect(record?.complete).toBe(false);
    expect(String(record?.incompleteReason)).toContain(
      `the tenant cluster stalled (${tenantProxy.url} stalled: no answer to GET /api/v1/configmaps before the pass deadline`,
    );
    const changes = await expectNoWrongfulChange(s);
    recordRow('stalled tenant (CLI, --deadline 10s)', { ms, logs: [] }, changes);
    process.stderr.write(`[faults] sync --deadline 10s, stalled tenant: ${ms} ms\n`);
    await expectConverges(s);
  });

  it('the function against a stalled host returns its summary before the Lambda timeout', async () => {
    const s = await scenario(apis(), 'dl-fn');
    hostProxy.setRules({ match: { method: /^(POST|PUT|PATCH|DELETE)$/ }, action: Faults.stall() });
    const invocation = await invokeSync({
      tenant: s.t.name,
      kubeconfigs: { tenant: clusters.tenant, host: hostProxy.kubeconfig() },
      remainingMs: 9_000,
      env: { SAFETY_MARGIN_MS: '4000' },
    });
    hostProxy.clear();
    expect(invocation.error).toBeUndefined();
    // Pass deadline at 5 s, then at most 2 s (half the margin) for status and Events.
    expect(invocation.ms).toBeLessThan(7_800);
    expect(invocation.result?.complete).toBe(false);
    expect(invocation.result?.incompleteReason).toContain(
      `the host cluster stalled (${hostProxy.url}`,
    );
    const changes = await expectNoWrongfulChange(s);
    recordRow(
      'stalled host (function, 9 s limit, 4 s margin)',
      { ms: invocation.ms, logs: [] },
      changes,
    );
    process.stderr.write(
      `[faults] function (9 s, margin 4 s), stalled host: ${invocation.ms} ms\n`,
    );
    await expectConverges(s);
  });
});
