/**
 * The wake path on the real clusters (issue 38): `npm run local:serverless` running as a process
 * group beside the test plane, whose tenant apiserver posts its audit batches to the plane's wake
 * endpoint.
 * - an idle tenant's ConfigMap and Deployment reach the host within seconds, woken, and the
 *   Deployment rolls out; after quietSeconds no function process runs;
 * - requests without a token, with another tenant's token or for an unknown tenant invoke nothing
 *   (no invocation, the host namespace unchanged), while the tenant's own token does;
 * - a wake endpoint that is down loses nothing: the schedule converges the change;
 * - SIGTERM to the process group, with a function running: exit 0 within seconds, nothing left.
 */

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { ControlPlaneState } from '../../../lib/localcluster/control-plane.js';
import { readRunningControlPlane } from '../../../lib/localcluster/index.js';
import { wakeFiles } from '../../../lib/localcluster/wake.js';
import type { KindRef } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  LABEL,
  listAll,
  type Tenant,
  tenantConfigMap,
  tenantObject,
  useApis,
  waitFor,
} from '../engine/support.js';
import {
  functionProcesses,
  groupProcesses,
  type ServerlessProcess,
  startServerless,
} from './serverless-process.js';

const apis = useApis();
const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
const QUIET_SECONDS = 4;
/** Generous: the figures go to the bench; this only says "seconds, not the next tick". */
const WAKE_BOUND_MS = 15_000;
const stateDir = process.env.TENANTPLANE_TEST_STATE_DIR ?? '';

let plane: ControlPlaneState;
let a: Tenant;
let b: Tenant;
let running: ServerlessProcess | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(args: string[]): Promise<ServerlessProcess> {
  running = startServerless(stateDir, ['--tenants', `${a.name},${b.name}`, ...args]);
  await running.ready;
  return running;
}

async function stop(): Promise<{ code: number | null; ms: number }> {
  const result = await (running as ServerlessProcess).terminate();
  running = undefined;
  return result;
}

/** Posts to the wake endpoint; the status. */
function post(path: string, token?: string, body = '{}'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${plane.wake.url}${path}`,
      {
        method: 'POST',
        ca: readFileSync(join(stateDir, 'pki', 'ca.crt')),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tokenOf = (tenant: Tenant) =>
  readFileSync(join(wakeFiles(stateDir).tokens, tenant.name), 'utf8').trim();

/** Audit batches the tenant apiserver gave up sending (its log says each once). */
const failedPosts = () =>
  readFileSync(join(stateDir, 'logs', 'kube-apiserver-tenant.log'), 'utf8').split(
    "Error in audit plugin 'webhook'",
  ).length;

/** uid@resourceVersion of every ConfigMap and Pod in the host namespace. */
async function snapshot(t: Tenant): Promise<string[]> {
  const objects = [
    ...(await listAll(t.hostApi, CONFIGMAP, t.hostNamespace)),
    ...(await listAll(t.hostApi, POD, t.hostNamespace)),
  ];
  return objects.map((o) => `${o.metadata.uid}@${o.metadata.resourceVersion}`).sort();
}

const hostCopy = (t: Tenant, kind: KindRef, ns: string, name: string) =>
  t.hostApi.get(kind, t.hostNamespace, hostName(name, ns, t.name));

/** Waits until no invocation runs: the tenants are idle. */
async function idle(): Promise<void> {
  await waitFor(
    'no function process',
    async () => functionProcesses(stateDir).length === 0 || undefined,
    60_000,
  );
}

beforeAll(async () => {
  plane = (await readRunningControlPlane(stateDir)) as ControlPlaneState;
  expect(plane?.wake.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  a = await createTenant(apis(), 'wake-a', { toHost: [CONFIGMAP, POD] });
  b = await createTenant(apis(), 'wake-b', { toHost: [CONFIGMAP] });
});

afterAll(async () => {
  if (running) await stop();
});

describe('local:serverless: the wake path on the local plane', () => {
  it('wakes an idle tenant: a ConfigMap and a Deployment reach the host in seconds, then no function runs', async () => {
    await start(['--quiet-seconds', String(QUIET_SECONDS), '--schedule-seconds', '3600']);
    await idle();
    const ns = a.vns.a;
    const t0 = Date.now();
    await a.tenantApi.create(tenantConfigMap(a, ns, 'woken', { k: 'v' }));
    await waitFor(
      'the ConfigMap on the host',
      async () => hostCopy(a, CONFIGMAP, ns, 'woken'),
      WAKE_BOUND_MS,
    );
    const configMapMs = Date.now() - t0;

    const labels = { app: 'web', [LABEL]: a.name };
    await a.tenantApi.create(
      tenantObject(a, DEPLOYMENT, ns, 'web', {
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels },
            spec: {
              automountServiceAccountToken: false,
              containers: [{ name: 'web', image: 'nginx:1' }],
            },
          },
        },
      }),
    );
    const t1 = Date.now();
    await waitFor(
      "the Deployment's Pods on the host",
      async () => ((await listAll(a.hostApi, POD, a.hostNamespace)).length >= 2 ? true : undefined),
      WAKE_BOUND_MS,
    );
    const podsMs = Date.now() - t1;
    // The rollout completes at the host's pace: the Pods run there, and that comes back.
    await waitFor(
      'the Deployment available in the tenant',
      async () => {
        const d = await a.tenantApi.get(DEPLOYMENT, ns, 'web');
        return (
          (d?.status as { availableReplicas?: number } | undefined)?.availableReplicas === 2 ||
          undefined
        );
      },
      60_000,
    );
    process.stderr.write(
      `[wake] ConfigMap on the host after ${configMapMs} ms, Pods after ${podsMs} ms\n`,
    );

    // Quiet: the follow ends, and with it the function's process.
    await waitFor(
      'the woken invocation ended',
      async () =>
        (running as ServerlessProcess).lines.some(
          (l) => l.tenant === a.name && l.reason === 'wake',
        ) || undefined,
      60_000 + QUIET_SECONDS * 1000,
    );
    await sleep((QUIET_SECONDS + 3) * 1000);
    await idle();
    const lines = (running as ServerlessProcess).lines.filter((l) => l.tenant === a.name);
    expect(lines.every((l) => l.reason === 'wake' && l.cold && l.error === undefined)).toBe(true);
    expect(lines.reduce((n, l) => n + l.changes, 0)).toBeGreaterThan(0);
    expect(functionProcesses(stateDir)).toEqual([]);
  }, 180_000);

  it("invokes nothing for a request without a token, with another tenant's token, or for an unknown tenant", async () => {
    // A change made while the endpoint is down: only a wake (or the far schedule) would copy it.
    await stop();
    const ns = a.vns.b;
    const failedBefore = failedPosts();
    await a.tenantApi.create(tenantConfigMap(a, ns, 'pending', { k: 'v' }));
    // The apiserver retries a failed batch with back-off and logs the failure once it gives up:
    // from then on, no wake of this change can come.
    await waitFor(
      'the audit batch dropped',
      async () => failedPosts() > failedBefore || undefined,
      60_000,
    );
    const serverless = await start([
      '--quiet-seconds',
      String(QUIET_SECONDS),
      '--schedule-seconds',
      '3600',
    ]);
    const before = await snapshot(a);
    const statuses = [
      await post(`/tenants/${a.name}`),
      await post(`/tenants/${a.name}`, 'not-a-token'),
      await post(`/tenants/${a.name}`, tokenOf(b)),
      await post('/tenants/no-such-tenant', tokenOf(a)),
      await post('/apiservers/tenant', tokenOf(a)),
    ];
    expect(statuses).toEqual([401, 403, 403, 403, 403]);
    await sleep(4_000);
    expect(serverless.lines).toEqual([]);
    expect(functionProcesses(stateDir)).toEqual([]);
    expect(await snapshot(a)).toEqual(before);
    expect(await hostCopy(a, CONFIGMAP, ns, 'pending')).toBeUndefined();

    // The tenant's own token wakes it: what the refusals above would have done.
    expect(await post(`/tenants/${a.name}`, tokenOf(a))).toBe(202);
    await waitFor(
      'the pending ConfigMap on the host',
      async () => hostCopy(a, CONFIGMAP, ns, 'pending'),
      WAKE_BOUND_MS,
    );
    // Its follow ends once quiet: stopped mid-follow, it would keep the tenant's lease.
    await waitFor(
      'the woken invocation ended',
      async () =>
        serverless.lines.some((l) => l.tenant === a.name && l.reason === 'wake') || undefined,
      60_000,
    );
  }, 120_000);

  it('loses nothing while the wake endpoint is down: the schedule converges the change', async () => {
    await stop();
    await idle();
    // The endpoint's port taken: every audit batch fails, and the runner cannot listen.
    const blocker: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker.listen(plane.wake.port, '127.0.0.1', resolve));
    try {
      const serverless = await start([
        '--quiet-seconds',
        String(QUIET_SECONDS),
        '--schedule-seconds',
        '5',
      ]);
      expect(serverless.stderr.join('\n')).toContain('wake endpoint cannot listen');
      const ns = a.vns.a;
      const failedBefore = failedPosts();
      // The tenant's write succeeds; its audit batch fails apart from it, in the apiserver's log.
      await a.tenantApi.create(tenantConfigMap(a, ns, 'unwoken', { k: 'v' }));
      await waitFor(
        'the audit batch failed',
        async () => failedPosts() > failedBefore || undefined,
        10_000,
      );
      await waitFor(
        'the ConfigMap on the host',
        async () => hostCopy(a, CONFIGMAP, ns, 'unwoken'),
        60_000,
      );
      expect(
        serverless.lines.filter((l) => l.tenant === a.name).map((l) => l.reason),
      ).not.toContain('wake');
      await waitFor(
        'the scheduled invocation ended',
        async () =>
          serverless.lines.some((l) => l.tenant === a.name && l.reason === 'schedule') || undefined,
        60_000,
      );
    } finally {
      await stop();
      await new Promise((resolve) => blocker.close(resolve));
    }
  }, 120_000);

  it('stops on SIGTERM to its process group, a function running: exit 0 within seconds, nothing left', async () => {
    const serverless = await start(['--quiet-seconds', '30', '--schedule-seconds', '3600']);
    await a.tenantApi.create(tenantConfigMap(a, a.vns.b, 'last', { k: 'v' }));
    await waitFor(
      'a function running',
      async () => functionProcesses(stateDir).length > 0 || undefined,
      WAKE_BOUND_MS,
    );
    const { code, ms } = await stop();
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    expect(groupProcesses(serverless.pgid)).toEqual([]);
    expect(functionProcesses(stateDir)).toEqual([]);
  }, 60_000);
});
