/**
 * The sync function as shipped: the esbuild bundle (index.mjs, built as the CDK app builds it)
 * run in a fresh Node 24 process with the environment the CDK gives the function, invoked with
 * its schedule's input, against the REAL tenant and host kube-apiservers. Secrets Manager is a
 * local endpoint speaking the service's JSON protocol, reached by the bundled AWS SDK through
 * AWS_ENDPOINT_URL_SECRETS_MANAGER. A canary sits in the kubeconfig secret and in a synced
 * tenant Secret; nothing the function prints may contain it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import { METRICS_NAMESPACE, SyncMetric } from '../../../functions/sync/contract.js';
import { bundleSyncHandler } from '../../../infra/bundle.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import type { ClusterApi } from '../../../lib/ports/index.js';
import { invokeBundledHandler } from '../support/bundled-handler.js';
import { integrationClusters } from '../support/clusters.js';
import {
  type SecretsManagerEndpoint,
  startSecretsManagerEndpoint,
} from '../support/secrets-manager-endpoint.js';
import { seedTenant } from '../support/seed.js';
import { type ShippedFunction, shippedFunction } from '../support/shipped-function.js';

const RUN = randomBytes(3).toString('hex');
const TENANT = `fnbundle-${RUN}`;
const HOST_NS = `fnbundle-host-${RUN}`;
const APPS_NS = `fnbundle-apps-${RUN}`;
const CANARY = `canary-${randomBytes(8).toString('hex')}`;
const CANARY_B64 = Buffer.from(CANARY).toString('base64');
const TENANT_SECRET = `tenantplane/tenants/${TENANT}/kubeconfig`;
const HOST_SECRET = `tenantplane/host-${RUN}/kubeconfig`;
const ACCESS_KEY_ID = 'AKIDLOCALTENANTPLANE';
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

const bundleDir = mkdtempSync(join(tmpdir(), 'tenantplane-bundle-it-'));
let endpoint: SecretsManagerEndpoint;
let fn: ShippedFunction;
let hostApi: ClusterApi;
let tenantKubeconfig: string;
/** Long substrings of the real credentials: none may appear in the output. */
let credentialFragments: string[];

/** A kubeconfig with the canary planted where a careless log would pick it up. */
function withCanary(text: string): string {
  const doc = parse(text) as Record<string, unknown>;
  doc.users = [
    ...((doc.users as unknown[]) ?? []),
    { name: `u-${CANARY}`, user: { token: CANARY } },
  ];
  doc.preferences = { extensions: [{ name: 'canary', extension: { value: CANARY } }] };
  return stringify(doc);
}

function invoke(event: unknown) {
  return invokeBundledHandler({
    fn,
    bundleDir,
    event,
    requestId: `req-${RUN}-${randomBytes(2).toString('hex')}`,
    extraEnv: {
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: 'local-secret-access-key',
      AWS_SESSION_TOKEN: 'local-session-token',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
      // No shared config or credentials file of the machine running the test.
      AWS_CONFIG_FILE: join(bundleDir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(bundleDir, 'no-aws-credentials'),
    },
  });
}

function jsonLines(out: string): Array<Record<string, unknown>> {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function expectNoSecretMaterial(out: string): void {
  expect(out).not.toContain(CANARY);
  expect(out).not.toContain(CANARY_B64);
  expect(out).not.toContain('client-key-data');
  expect(out).not.toContain('BEGIN');
  for (const fragment of credentialFragments) expect(out).not.toContain(fragment);
}

beforeAll(async () => {
  const clusters = integrationClusters();
  const tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  credentialFragments = [clusters.tenant.text, clusters.host.text].flatMap((text) =>
    (parse(text) as { users: Array<{ user: Record<string, string> }> }).users.flatMap((u) =>
      Object.values(u.user)
        .filter((v) => typeof v === 'string' && v.length > 40)
        .map((v) => v.slice(10, 50)),
    ),
  );
  expect(credentialFragments.length).toBeGreaterThan(0);

  await bundleSyncHandler(bundleDir);
  fn = shippedFunction({
    tenant: TENANT,
    tenantSecretId: TENANT_SECRET,
    hostSecretId: HOST_SECRET,
    bundleDir,
  });
  tenantKubeconfig = withCanary(clusters.tenant.text);
  endpoint = await startSecretsManagerEndpoint({
    [TENANT_SECRET]: tenantKubeconfig,
    [HOST_SECRET]: JSON.stringify({ kubeconfig: withCanary(clusters.host.text) }),
  });

  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [CONFIGMAP, SECRET],
    apps: { tenantApi, namespace: APPS_NS, passwordB64: CANARY_B64 },
  });
});

afterAll(async () => {
  await endpoint?.close();
  rmSync(bundleDir, { recursive: true, force: true });
});

describe('the bundled sync function, as shipped', () => {
  it('is the CDK function: index.handler on nodejs24.x, scheduled with the tenant as input', () => {
    expect(fn).toMatchObject({
      functionName: `tenantplane-sync-${TENANT}`,
      handler: 'index.handler',
      runtime: 'nodejs24.x',
      scheduleInput: { tenant: TENANT },
    });
    expect(fn.environment).toMatchObject({
      TENANT,
      TENANT_KUBECONFIG_SECRET_ID: TENANT_SECRET,
      HOST_KUBECONFIG_SECRET_ID: HOST_SECRET,
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it('runs a pass from its schedule event: result, JSON logs, EMF metrics, no secret material', async () => {
    const run = await invoke(fn.scheduleInput);
    const out = run.stdout + run.stderr;

    expect(run.node).toMatch(/^v24\./);
    expect(run.error).toBeUndefined();
    expect(run.exitCode).toBe(0);
    expect(run.result).toMatchObject({
      tenant: TENANT,
      dryRun: false,
      complete: true,
      counts: { Create: 2, Update: 0, Delete: 0, Skip: 0 },
      objectErrors: 0,
    });
    const passId = (run.result as { passId: string }).passId;

    // Both kubeconfigs came from the endpoint, through the SDK, signed.
    const reads = endpoint.requests.filter((r) => r.target === 'secretsmanager.GetSecretValue');
    expect(reads.map((r) => r.secretId).sort()).toEqual([HOST_SECRET, TENANT_SECRET].sort());
    for (const r of reads) {
      expect(r.contentType).toBe('application/x-amz-json-1.1');
      expect(r.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/eu-west-1/secretsmanager/aws4_request`,
        ),
      );
    }

    // The pass really wrote: both objects are on the host under their deterministic names.
    const hostConfig = await hostApi.get(
      CONFIGMAP,
      HOST_NS,
      hostName('app-config', APPS_NS, TENANT),
    );
    expect(hostConfig?.data).toEqual({ greeting: 'hello' });
    const hostSecret = await hostApi.get(
      SECRET,
      HOST_NS,
      hostName('db-credentials', APPS_NS, TENANT),
    );
    expect(hostSecret?.data).toEqual({ password: CANARY_B64 });

    // Every line the function prints is JSON: decisions and the pass, then the EMF document, on
    // stdout; nothing (no warning) on stderr.
    expect(run.stderr).toBe('');
    const lines = jsonLines(run.stdout);
    const decisions = lines.filter((l) => l.message === 'decision');
    expect(decisions).toHaveLength(2);
    for (const d of decisions)
      expect(d).toMatchObject({
        level: 'INFO',
        service: 'tenantplane-sync',
        type: 'decision',
        tenant: TENANT,
        passId,
        correlation_id: passId,
        action: 'Create',
        hostNamespace: HOST_NS,
      });
    expect(lines.find((l) => l.message === 'pass finished')).toMatchObject({
      type: 'pass',
      tenant: TENANT,
      passId,
      complete: true,
      creates: 2,
    });
    const emf = lines.filter((l) => '_aws' in l);
    expect(emf).toHaveLength(1);
    const directive = (emf[0]!._aws as { CloudWatchMetrics: Array<Record<string, unknown>> })
      .CloudWatchMetrics[0]!;
    expect(directive).toMatchObject({ Namespace: METRICS_NAMESPACE, Dimensions: [['tenant']] });
    const published = (directive.Metrics as Array<{ Name: string }>).map((m) => m.Name);
    // Every metric but a follow's, which only a followed tenant's invocations publish
    // (`functions/follow.test.ts`).
    const followOnly: string[] = [
      SyncMetric.FollowedSeconds,
      SyncMetric.FollowPasses,
      SyncMetric.FollowChanges,
      SyncMetric.FollowFailures,
      SyncMetric.ChangeLatencyP50,
      SyncMetric.ChangeLatencyP99,
    ];
    const expected = Object.values(SyncMetric).filter((name) => !followOnly.includes(name));
    expect([...published].sort()).toEqual([...expected].sort());
    expect(emf[0]).toMatchObject({
      tenant: TENANT,
      Creates: 2,
      Updates: 0,
      Deletes: 0,
      Skips: 0,
      PassComplete: 1,
      PassIncomplete: 0,
    });

    expectNoSecretMaterial(out);
  });

  it('fails cleanly when the tenant secret is missing, naming it and quoting nothing', async () => {
    endpoint.deleteSecret(TENANT_SECRET);
    try {
      const run = await invoke(fn.scheduleInput);
      expect(run.node).toMatch(/^v24\./);
      expect(run.result).toBeUndefined();
      expect(run.error?.message).toBe(
        `tenant kubeconfig from secret ${TENANT_SECRET}: secret not found (ResourceNotFoundException)`,
      );
      // Powertools writes errors and warnings to stderr; on Lambda both streams are the log.
      expect(jsonLines(run.stderr).find((l) => l.message === 'sync failed')).toMatchObject({
        level: 'ERROR',
        errorName: 'KubeconfigLoadError',
      });
      expectNoSecretMaterial(run.stdout + run.stderr);
    } finally {
      endpoint.putSecret(TENANT_SECRET, tenantKubeconfig);
    }
  });
});
