/**
 * The sync Lambda handler, invoked in-process with a Lambda context against the REAL local
 * kube-apiservers. Secrets Manager is replaced by aws-sdk-client-mock and hands out the real
 * clusters' kubeconfigs (with a canary planted in them); a synced Secret carries the canary too.
 * Nothing the function writes to stdout/stderr may contain either.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { parse, stringify } from 'yaml';
import { createHandler } from '../../../functions/sync/handler.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import type { ClusterApi } from '../../../lib/ports/index.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { captured } from '../support/captured-output.js';
import { integrationClusters } from '../support/clusters.js';
import { syncFunctionContext } from '../support/lambda-context.js';
import { seedTenant } from '../support/seed.js';

const RUN = randomBytes(3).toString('hex');
const TENANT = `fnit-${RUN}`;
const OTHER = `fnit-other-${RUN}`;
const HOST_NS = `fnit-host-${RUN}`;
const APPS_NS = `fnit-apps-${RUN}`;
const CANARY = `canary-${randomBytes(8).toString('hex')}`;
const CANARY_B64 = Buffer.from(CANARY).toString('base64');

const TENANT_SECRET = `tenantplane/tenants/${TENANT}/kubeconfig`;
const HOST_SECRET = `tenantplane/host-${RUN}/kubeconfig`;
const ENV = {
  TENANT,
  TENANT_KUBECONFIG_SECRET_ID: TENANT_SECRET,
  HOST_KUBECONFIG_SECRET_ID: HOST_SECRET,
  SECRETS_MAX_AGE_SECONDS: '300',
};

const EVENT = { apiVersion: 'v1', kind: 'Event' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

const secretsManager = mockClient(SecretsManagerClient);

/** A kubeconfig with the canary planted where a careless log would pick it up. */
function withCanary(text: string): string {
  const doc = parse(text) as Record<string, unknown>;
  const users = (doc.users as unknown[]) ?? [];
  doc.users = [...users, { name: `unused-${CANARY}`, user: { token: CANARY } }];
  doc.preferences = { extensions: [{ name: 'canary', extension: { value: CANARY } }] };
  return stringify(doc);
}

function lambdaContext(): Context {
  return { ...syncFunctionContext(TENANT, Date.now() + 90_000), awsRequestId: `req-${RUN}` };
}

let tenantApi: ClusterApi;
let hostApi: ClusterApi;
let tenantKubeconfig: string;
let hostKubeconfig: string;
/** Long substrings of the real credentials: none may appear in the output. */
let credentialFragments: string[];

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

/** Host state that a pass would change: objects in the host namespace, Events, TenantCluster rv. */
async function hostState(): Promise<string> {
  const objects = await Promise.all(
    [CONFIGMAP, SECRET].map((k) => hostApi.list(k, { namespace: HOST_NS })),
  );
  const events = await hostApi.list(EVENT, {
    namespace: 'default',
    fieldSelector: `involvedObject.name=${TENANT}`,
  });
  const tc = await hostApi.get(TENANT_CLUSTER, undefined, TENANT);
  return JSON.stringify({
    objects: objects.flatMap((p) =>
      p.items.map((o) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`),
    ),
    events: events.items.map((e) => `${e.metadata.name}@${e.metadata.resourceVersion}`),
    tenantCluster: tc?.metadata.resourceVersion,
  });
}

beforeAll(async () => {
  process.env.AWS_REGION = 'eu-west-1';
  const clusters = integrationClusters();
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  tenantKubeconfig = withCanary(clusters.tenant.text);
  hostKubeconfig = withCanary(clusters.host.text);
  credentialFragments = [clusters.tenant.text, clusters.host.text].flatMap((text) => {
    const doc = parse(text) as { users: Array<{ user: Record<string, string> }> };
    return doc.users.flatMap((u) =>
      Object.values(u.user)
        .filter((v) => typeof v === 'string' && v.length > 40)
        .map((v) => v.slice(10, 50)),
    );
  });
  expect(credentialFragments.length).toBeGreaterThan(0);

  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [CONFIGMAP, SECRET],
    apps: { tenantApi, namespace: APPS_NS, passwordB64: CANARY_B64 },
  });
});

afterAll(() => {
  secretsManager.restore();
});

beforeEach(() => {
  secretsManager.reset();
  secretsManager
    .on(GetSecretValueCommand, { SecretId: TENANT_SECRET })
    .resolves({ Name: TENANT_SECRET, SecretString: tenantKubeconfig });
  secretsManager
    .on(GetSecretValueCommand, { SecretId: HOST_SECRET })
    .resolves({ Name: HOST_SECRET, SecretString: JSON.stringify({ kubeconfig: hostKubeconfig }) });
});

describe('sync handler against real clusters', () => {
  it('refuses an event for another tenant before reading any secret', async () => {
    const handler = createHandler({ env: ENV });
    const before = await hostState();

    const { out, error } = await captured(() => handler({ tenant: OTHER }, lambdaContext()));

    expect(error?.message).toBe(
      `this function syncs tenant "${TENANT}" and refuses an event for tenant "${OTHER}"`,
    );
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    expect(await hostState()).toBe(before);
    expect(jsonLines(out).find((l) => l.message === 'sync failed')).toMatchObject({
      level: 'ERROR',
      errorName: 'TenantMismatchError',
    });
  });

  it('fails cleanly, with no writes, when the tenant secret is missing', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: TENANT_SECRET }).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    const handler = createHandler({ env: ENV });
    const before = await hostState();

    const { out, error } = await captured(() => handler({ tenant: TENANT }, lambdaContext()));

    expect(error?.message).toBe(
      `tenant kubeconfig from secret ${TENANT_SECRET}: secret not found (ResourceNotFoundException)`,
    );
    expect(await hostState()).toBe(before);
    expectNoSecretMaterial(out);
  });

  it('fails cleanly, with no writes and without quoting it, on a malformed host kubeconfig', async () => {
    secretsManager
      .on(GetSecretValueCommand, { SecretId: HOST_SECRET })
      .resolves({ Name: HOST_SECRET, SecretString: `apiVersion: v1\nclusters: [{{ ${CANARY}` });
    const handler = createHandler({ env: ENV });
    const before = await hostState();

    const { out, error } = await captured(() => handler({ tenant: TENANT }, lambdaContext()));

    expect(error?.message).toMatch(new RegExp(`^host kubeconfig from secret ${HOST_SECRET}: `));
    expect(error?.message).not.toContain(CANARY);
    expect(await hostState()).toBe(before);
    expectNoSecretMaterial(out);
  });

  it('refuses a stored tenant kubeconfig whose user runs a command (exec): nothing runs, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tp-exec-'));
    const marker = join(dir, 'ran');
    // The tenant's own kubeconfig, its current user an exec plugin that would run in the function.
    const doc = parse(tenantKubeconfig) as {
      contexts: { context: { user: string } }[];
      users: unknown[];
    };
    const userName = doc.contexts[0]!.context.user;
    doc.users = [
      {
        name: userName,
        user: {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: '/bin/sh',
            args: ['-c', `touch ${marker}; echo '{}'`],
            interactiveMode: 'Never',
          },
        },
      },
    ];
    secretsManager
      .on(GetSecretValueCommand, { SecretId: TENANT_SECRET })
      .resolves({ Name: TENANT_SECRET, SecretString: stringify(doc) });
    const handler = createHandler({ env: ENV });
    const before = await hostState();

    const { out, error } = await captured(() => handler({ tenant: TENANT }, lambdaContext()));

    expect(error?.message).toBe(
      `tenant kubeconfig from secret ${TENANT_SECRET}: user ${JSON.stringify(userName)} runs a command (exec); a kubeconfig read from Secrets Manager must carry its credentials inline (a token or an embedded client certificate)`,
    );
    expect(existsSync(marker)).toBe(false);
    expect(await hostState()).toBe(before);
    expectNoSecretMaterial(out);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a real pass: host objects and Events appear, logs are JSON without secret material', async () => {
    const handler = createHandler({ env: ENV });

    const { out, result, error } = await captured(() =>
      handler(
        { 'detail-type': 'SyncRequested', source: 'tenantplane.cli', detail: { tenant: TENANT } },
        lambdaContext(),
      ),
    );

    expect(error).toBeUndefined();
    expect(result).toMatchObject({
      tenant: TENANT,
      dryRun: false,
      complete: true,
      counts: { Create: 2, Update: 0, Delete: 0, Skip: 0 },
      objectErrors: 0,
    });
    // Seen = listed, before the policy's exclusions (other test files share the clusters).
    expect(result!.objectsSeen).toBeGreaterThanOrEqual(2);

    // Host objects, under their deterministic names, with the Secret's data carried over.
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

    // Events on the TenantCluster explain them.
    const events = await hostApi.list(EVENT, {
      namespace: 'default',
      fieldSelector: `involvedObject.name=${TENANT}`,
    });
    const reasons = events.items.map((e) => e.reason);
    expect(reasons.filter((r) => r === 'Create')).toHaveLength(2);
    expect(events.items.map((e) => String(e.message)).join('\n')).toContain(
      hostName('db-credentials', APPS_NS, TENANT),
    );

    // Every line is JSON; decisions and the pass carry the documented fields.
    const lines = jsonLines(out);
    const decisions = lines.filter((l) => l.message === 'decision');
    expect(decisions).toHaveLength(2);
    for (const d of decisions) {
      for (const field of [
        'level',
        'timestamp',
        'service',
        'correlation_id',
        'function_request_id',
        'type',
        'tenant',
        'passId',
        'action',
        'kind',
        'apiVersion',
        'tenantRef',
        'tenantNamespace',
        'tenantName',
        'hostRef',
        'hostNamespace',
        'hostName',
        'reason',
        'dryRun',
      ])
        expect(d).toHaveProperty(field);
      expect(d.correlation_id).toBe(result!.passId);
      expect(d.function_request_id).toBe(`req-${RUN}`);
    }
    expect(lines.find((l) => l.message === 'pass finished')).toMatchObject({
      type: 'pass',
      tenant: TENANT,
      passId: result!.passId,
      complete: true,
      creates: 2,
      objectsSeen: result!.objectsSeen,
    });
    const emf = lines.find((l) => '_aws' in l);
    expect(emf).toMatchObject({ tenant: TENANT, Creates: 2, PassComplete: 1, PassIncomplete: 0 });
    expectNoSecretMaterial(out);

    // Warm invocation: the secrets come from the cache; the pass converges to no writes.
    const again = await captured(() => handler({ tenant: TENANT }, lambdaContext()));
    expect(again.error).toBeUndefined();
    expect(again.result?.counts).toEqual({ Create: 0, Update: 0, Delete: 0, Skip: 0 });
    expect(secretsManager.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expectNoSecretMaterial(again.out);
  });
});
