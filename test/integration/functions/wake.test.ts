/**
 * The shipped sync function of a woken tenant (`wake: {}` in config/tenants.yaml, docs/wake.md),
 * run from its bundle in a fresh Node 24 process against the real tenant and host apiservers
 * (kubeconfigs from a local Secrets Manager endpoint), as follow.test.ts runs a followed one:
 * invoked with the wake endpoint's event while the tenant is converged, its pass writes nothing,
 * and it follows all the same: a change made just after the pass reaches the host in seconds,
 * then the invocation ends quiet; it counts one wake. The same tenant's schedule input, with
 * nothing changed, ends after its pass as before.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InvocationFollow } from '../../../functions/sync/follow.js';
import { bundleSyncHandler } from '../../../infra/bundle.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { type ClusterApi, TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { type Invocation, invokeBundledHandler } from '../support/bundled-handler.js';
import { integrationClusters } from '../support/clusters.js';
import {
  type SecretsManagerEndpoint,
  startSecretsManagerEndpoint,
} from '../support/secrets-manager-endpoint.js';
import { seedTenant } from '../support/seed.js';
import { type ShippedFunction, shippedFunction } from '../support/shipped-function.js';

const RUN = randomBytes(3).toString('hex');
const TENANT = `fnwake-${RUN}`;
const HOST_NS = `fnwake-host-${RUN}`;
const APPS_NS = `fnwake-apps-${RUN}`;
const TENANT_SECRET = `tenantplane/tenants/${TENANT}/kubeconfig`;
const HOST_SECRET = `tenantplane/host-${TENANT}/kubeconfig`;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const QUIET_SECONDS = 5;
const TIMEOUT_SECONDS = 60;

const bundleDir = mkdtempSync(join(tmpdir(), 'tenantplane-wake-it-'));
let endpoint: SecretsManagerEndpoint;
let fn: ShippedFunction;
let tenantApi: ClusterApi;
let hostApi: ClusterApi;

function invoke(event: unknown): Promise<Invocation> {
  return invokeBundledHandler({
    fn,
    bundleDir,
    event,
    requestId: `req-${RUN}-${randomBytes(2).toString('hex')}`,
    extraEnv: {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOCALTENANTPLANE',
      AWS_SECRET_ACCESS_KEY: 'local-secret-access-key',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
      AWS_CONFIG_FILE: join(bundleDir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(bundleDir, 'no-aws-credentials'),
    },
  });
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await probe()) !== undefined) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const hostCopy = (name: string) => () =>
  hostApi.get(CONFIGMAP, HOST_NS, hostName(name, APPS_NS, TENANT));
const followActive = async () => {
  const tc = await hostApi.get(TENANT_CLUSTER, undefined, TENANT);
  return (tc?.status as { follow?: { active?: boolean } } | undefined)?.follow?.active
    ? true
    : undefined;
};
const followOf = (run: Invocation) => (run.result as { follow?: InvocationFollow }).follow;
const wakes = (run: Invocation) =>
  `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((l) => l.trim().startsWith('{') && l.includes('"_aws"'))
    .map((l) => (JSON.parse(l) as { Wakes?: number }).Wakes);

beforeAll(async () => {
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  await bundleSyncHandler(bundleDir);
  fn = shippedFunction({
    tenant: TENANT,
    tenantSecretId: TENANT_SECRET,
    hostSecretId: HOST_SECRET,
    bundleDir,
    follow: { quietSeconds: QUIET_SECONDS, timeoutSeconds: TIMEOUT_SECONDS },
    wake: true,
  });
  endpoint = await startSecretsManagerEndpoint({
    [TENANT_SECRET]: clusters.tenant.text,
    [HOST_SECRET]: clusters.host.text,
  });
  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [CONFIGMAP],
    apps: { tenantApi, namespace: APPS_NS, passwordB64: 'cGFzcw==' },
  });
  // Converge the seed first (a tick that writes, follows, ends quiet): the tenant is idle after.
  const first = await invoke(fn.scheduleInput);
  if (first.error) throw new Error(`the first tick failed: ${first.error.message}`);
}, 120_000);

afterAll(async () => {
  await endpoint?.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

describe('the shipped function of a woken tenant', () => {
  it('woken while converged: follows anyway, a change right after its pass converges in seconds', async () => {
    const running = invoke({ tenant: TENANT, wake: true });
    await until('the woken follow', 20_000, followActive);
    await tenantApi.create({
      ...CONFIGMAP,
      metadata: {
        name: 'after-the-wake',
        namespace: APPS_NS,
        labels: { 'tenantplane-test': TENANT },
      },
      data: { step: 'written while the woken function follows' },
    });
    const latencyMs = await until('the host copy', 15_000, hostCopy('after-the-wake'));
    const run = await running;

    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    // The woken pass found nothing to do, and followed: the follow converged the change.
    expect(run.result).toMatchObject({ tenant: TENANT, complete: true, counts: { Create: 0 } });
    expect(latencyMs).toBeLessThan(5_000);
    expect(followOf(run)).toMatchObject({ followed: true, endReason: 'quiet', failures: 0 });
    const follow = followOf(run);
    if (!follow?.followed) throw new Error('not followed');
    expect(follow.changes).toBeGreaterThanOrEqual(1);
    expect(wakes(run)[0]).toBe(1);
  });

  it('the same tenant on its schedule, nothing changed: ends after its pass', async () => {
    const run = await invoke(fn.scheduleInput);
    expect(run.error).toBeUndefined();
    expect(followOf(run)).toEqual({
      followed: false,
      reason: 'the pass wrote nothing: the tenant is idle',
    });
    expect(wakes(run)[0]).toBe(0);
  });
});
