/**
 * A host on EKS reached with the function's IAM role, end to end on the local plane: the sync
 * handler describes the cluster (a local EKS endpoint), signs a `k8s-aws-v1.` token from its
 * credentials (test credentials of an assumed role), and runs a pass against a host apiserver
 * that authenticates the token through a real token-webhook authenticator
 * (`--authentication-token-webhook-config-file`), whose webhook asks a local STS that checks the
 * SigV4 presignature (test/integration/support/eks-iam.ts). The rights are only those of
 * deploy/rbac/host-cluster.yaml, bound to the access entry's group.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { createHandler, type SyncResult } from '../../../functions/sync/handler.js';
import {
  eksUsernameFor,
  hostGroupFor,
  TENANT_CLUSTER_GROUP,
} from '../../../infra/constructs/eks-access.js';
import { EksClusters } from '../../../lib/adapters/eks/cluster.js';
import { EksTokenSource } from '../../../lib/adapters/eks/token.js';
import { createBearerClusterApi } from '../../../lib/adapters/kube/bearer.js';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import {
  type ClusterApi,
  isClusterError,
  type KubeObject,
  TENANT_CLUSTER,
} from '../../../lib/ports/index.js';
import { captured } from '../support/captured-output.js';
import { integrationClusters } from '../support/clusters.js';
import {
  type LocalEks,
  type LocalSts,
  REGION,
  startLocalEks,
  startLocalSts,
  startTokenWebhook,
  type TestRole,
  type TokenWebhook,
} from '../support/eks-iam.js';
import { fillHostTemplate, kubectlApply, rbacFile } from '../support/rbac.js';
import { seedTenant } from '../support/seed.js';
import { startWebhookApiServer, type WebhookApiServer } from '../support/webhook-apiserver.js';

const RUN = randomBytes(3).toString('hex');
const TENANT = `eks-${RUN}`;
const HOST_NS = `eks-host-${RUN}`;
const APPS_NS = `eks-apps-${RUN}`;
const CLUSTER = `host-local-${RUN}`;
const TENANT_EKS = `tenant-local-${RUN}`;
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

/** The function role's session credentials, as Lambda hands them to the function. */
const ROLE: TestRole = {
  roleName: `tenantplane-sync-${TENANT}`,
  accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64'),
  sessionToken: randomBytes(60).toString('base64'),
};

const clusters = integrationClusters();
let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
let sts: LocalSts;
let webhook: TokenWebhook;
let apiserver: WebhookApiServer;
let tenantWebhook: TokenWebhook;
let tenantApiserver: WebhookApiServer;
let eks: LocalEks;
const savedEnv: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    savedEnv[key] = process.env[key];
    process.env[key] = value;
  }
}

function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `tenantplane-sync-${TENANT}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:123456789012:function:tenantplane-sync-${TENANT}`,
    memoryLimitInMB: '512',
    awsRequestId: `req-${RUN}`,
    logGroupName: `/tenantplane/sync/${TENANT}`,
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 90_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** uid and resourceVersion of every ConfigMap and Secret in the host namespace. */
async function hostSnapshot(): Promise<Map<string, string>> {
  const pages = await Promise.all(
    [CONFIGMAP, SECRET].map((kind) => hostApi.list(kind, { namespace: HOST_NS })),
  );
  return new Map(
    pages.flatMap((page) =>
      page.items.map((o): [string, string] => [
        `${o.kind}/${o.metadata.name}`,
        `${o.metadata.uid}@${o.metadata.resourceVersion}`,
      ]),
    ),
  );
}

/** A client of the webhook apiserver authenticating with `tokens`. */
function bearerClient(tokens: EksTokenSource): KubeClusterApi {
  const kubeconfig = JSON.stringify({
    clusters: [
      {
        name: 'eks',
        cluster: {
          server: apiserver.server,
          'certificate-authority-data': Buffer.from(apiserver.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'iam', user: {} }],
    contexts: [{ name: 'eks', context: { cluster: 'eks', user: 'iam' } }],
    'current-context': 'eks',
  });
  return createBearerClusterApi({ text: kubeconfig, origin: 'test' }, tokens);
}

async function readTenantCluster(api: ClusterApi): Promise<KubeObject | undefined> {
  return api.get(TENANT_CLUSTER, undefined, TENANT);
}

beforeAll(async () => {
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [CONFIGMAP],
    apps: { tenantApi, namespace: APPS_NS, passwordB64: Buffer.from('pw').toString('base64') },
  });
  sts = await startLocalSts([ROLE]);
  // The access entry the CDK makes for this tenant's function role (infra/constructs/eks-access.ts).
  webhook = await startTokenWebhook({
    clusterId: CLUSTER,
    stsUrl: sts.url,
    entries: [
      {
        roleName: ROLE.roleName,
        username: eksUsernameFor('host', TENANT),
        groups: [hostGroupFor(TENANT)],
      },
    ],
  });
  // The tenant cluster on EKS too: its own authenticator, and the tenant cluster's access entry.
  tenantWebhook = await startTokenWebhook({
    clusterId: TENANT_EKS,
    stsUrl: sts.url,
    entries: [
      {
        roleName: ROLE.roleName,
        username: eksUsernameFor('tenant', TENANT),
        groups: [TENANT_CLUSTER_GROUP],
      },
    ],
  });
  [apiserver, tenantApiserver] = await Promise.all([
    startWebhookApiServer('host', webhook.url),
    startWebhookApiServer('tenant', tenantWebhook.url),
  ]);
  const described = (server: WebhookApiServer) => ({
    endpoint: server.server,
    caData: Buffer.from(server.caPem).toString('base64'),
  });
  eks = await startLocalEks({
    [CLUSTER]: described(apiserver),
    [TENANT_EKS]: described(tenantApiserver),
  });
  // What the SDK's default chain reads in Lambda; the EKS client is pointed at the local EKS.
  setEnv({
    AWS_ACCESS_KEY_ID: ROLE.accessKeyId,
    AWS_SECRET_ACCESS_KEY: ROLE.secretAccessKey,
    AWS_SESSION_TOKEN: ROLE.sessionToken,
    AWS_REGION: REGION,
    AWS_ENDPOINT_URL_EKS: eks.url,
  });
}, 180_000);

afterAll(async () => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await Promise.all([apiserver?.stop(), tenantApiserver?.stop()]);
  await Promise.all([sts?.close(), webhook?.close(), tenantWebhook?.close(), eks?.close()]);
  await Promise.all([tenantApi?.close(), hostApi?.close()]);
});

describe('a host on EKS reached with the function role', () => {
  it('authenticates the role token, which has no right until deploy/rbac binds its group', async () => {
    const directory = new EksClusters();
    const api = await directory.connect('host', { clusterName: CLUSTER, region: REGION });
    const error = await readTenantCluster(api).catch((e: unknown) => e);
    // Forbidden, not Unauthorized: the webhook authenticated the token as the access entry user.
    expect(isClusterError(error) && error.reason).toBe('Forbidden');
    expect(webhook.reviews.at(-1)).toEqual({
      authenticated: true,
      username: `tenantplane-sync-${TENANT}:iam`,
    });
    expect(sts.answers.at(-1)).toEqual({ clusterId: CLUSTER, ok: true });

    const template = await readFile(rbacFile('host-cluster.yaml'), 'utf8');
    await kubectlApply(clusters.hostKubeconfigPath, fillHostTemplate(template, TENANT, HOST_NS));
    // RBAC takes effect eventually.
    const deadline = Date.now() + 30_000;
    let found: KubeObject | undefined;
    while (!found && Date.now() < deadline) {
      found = await readTenantCluster(api).catch(() => undefined);
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found?.metadata.name).toBe(TENANT);
    await api.close();
  });

  it('runs a pass through the sync handler with the IAM token, describing the cluster once per container', async () => {
    const handler = createHandler({
      env: {
        TENANT,
        TENANT_KUBECONFIG_SECRET_ID: `unused/${TENANT}`,
        HOST_EKS_CLUSTER_NAME: CLUSTER,
        HOST_EKS_REGION: REGION,
      },
      // The tenant side is not the subject: its admin kubeconfig, as a secret would hold it.
      kubeconfigSource: () => ({
        load: async (role) => {
          if (role !== 'tenant') throw new Error('the host must be reached through EKS');
          return clusters.tenant;
        },
      }),
    });
    // The apiserver remembers a token it authenticated for 10 s: a second after the test above
    // signed its last one, the handler signs a token of its own (another X-Amz-Date), which the
    // webhook must review. Without the wait, both may be signed in one second, be the same token,
    // and the pass go through the apiserver's cache instead.
    await new Promise((r) => setTimeout(r, 1100));
    const reviewsBefore = webhook.reviews.length;
    const describedBefore = eks.described.length;
    const before = await hostSnapshot();

    const first = await captured(() => handler({ tenant: TENANT }, lambdaContext()));
    expect(first.error).toBeUndefined();
    const result = first.result as SyncResult;
    expect(result).toMatchObject({ tenant: TENANT, complete: true, objectErrors: 0 });
    expect(result.counts.Create).toBe(1);

    // Exactly one new object in the host namespace, the ConfigMap's copy; nothing else changed.
    const after = await hostSnapshot();
    const added = [...after.keys()].filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^ConfigMap\//);
    for (const [key, version] of before) expect(after.get(key)).toBe(version);
    const copy = await hostApi.get(CONFIGMAP, HOST_NS, added[0]!.slice('ConfigMap/'.length));
    expect(copy?.data).toEqual({ greeting: 'hello' });

    // Every request of the pass went through the webhook, authenticated as the access entry.
    const reviews = webhook.reviews.slice(reviewsBefore);
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.every((r) => r.authenticated)).toBe(true);
    expect(sts.answers.every((a) => a.clusterId === CLUSTER && a.ok)).toBe(true);

    // A warm invocation: no second DescribeCluster, and the pass finds nothing to do.
    const second = await captured(() => handler({ tenant: TENANT }, lambdaContext()));
    expect(second.error).toBeUndefined();
    expect((second.result as SyncResult).counts.Create).toBe(0);
    expect(eks.described.slice(describedBefore)).toEqual([CLUSTER]);

    // Nothing of the token or the credentials it is signed with reaches the logs.
    for (const out of [first.out, second.out]) {
      expect(out).not.toContain('k8s-aws-v1');
      expect(out).not.toContain('X-Amz-');
      expect(out).not.toContain(ROLE.secretAccessKey);
      expect(out).not.toContain(ROLE.sessionToken);
    }
  });

  it('runs a pass with the tenant cluster on EKS too, bound by deploy/rbac/tenant-cluster.yaml, reading no secret', async () => {
    const template = await readFile(rbacFile('tenant-cluster.yaml'), 'utf8');
    await kubectlApply(clusters.tenantKubeconfigPath, template);
    await tenantApi.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'second-config',
        namespace: APPS_NS,
        labels: { 'tenantplane-test': TENANT },
      },
      data: { greeting: 'again' },
    });
    // RBAC takes effect eventually: wait until the role's token may list the tenant's ConfigMaps.
    const directory = new EksClusters();
    const probe = await directory.connect('tenant', { clusterName: TENANT_EKS, region: REGION });
    const deadline = Date.now() + 30_000;
    while (
      !(await probe.list(CONFIGMAP, { limit: 1 }).then(
        () => true,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('the tenant-cluster.yaml grant never took effect');
      await new Promise((r) => setTimeout(r, 200));
    }
    await probe.close();
    // The apiserver remembers a token it authenticated for 10 s: a second later the
    // handler signs a token of its own (another X-Amz-Date), which the webhook must review.
    await new Promise((r) => setTimeout(r, 1100));
    const reviewsBefore = tenantWebhook.reviews.length;

    const handler = createHandler({
      env: {
        TENANT,
        TENANT_EKS_CLUSTER_NAME: TENANT_EKS,
        TENANT_EKS_REGION: REGION,
        HOST_EKS_CLUSTER_NAME: CLUSTER,
        HOST_EKS_REGION: REGION,
      },
      kubeconfigSource: () => ({
        load: async (role) => {
          throw new Error(`no secret may be read, asked for the ${role} kubeconfig`);
        },
      }),
    });
    const before = await hostSnapshot();

    const { result, error, out } = await captured(() =>
      handler({ tenant: TENANT }, lambdaContext()),
    );
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ complete: true, objectErrors: 0 });
    expect(result?.counts.Create).toBe(1);

    const after = await hostSnapshot();
    const added = [...after.keys()].filter((key) => !before.has(key));
    expect(added).toHaveLength(1);
    for (const [key, version] of before) expect(after.get(key)).toBe(version);
    const copy = await hostApi.get(CONFIGMAP, HOST_NS, added[0]!.slice('ConfigMap/'.length));
    expect(copy?.data).toEqual({ greeting: 'again' });

    const reviews = tenantWebhook.reviews.slice(reviewsBefore);
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.every((r) => r.authenticated && r.username === 'tenantplane-sync:iam')).toBe(
      true,
    );
    expect(out).not.toContain('k8s-aws-v1');
    expect(out).not.toContain(ROLE.sessionToken);
  });

  it('is refused a token STS would refuse: another cluster, too old, or a wrong key', async () => {
    const credentials = {
      accessKeyId: ROLE.accessKeyId,
      secretAccessKey: ROLE.secretAccessKey,
      sessionToken: ROLE.sessionToken,
    };
    const cases = [
      {
        what: 'signed for another cluster',
        tokens: new EksTokenSource(
          { clusterName: 'another-cluster', region: REGION },
          { credentials: async () => credentials },
        ),
        refusedBy: 'sts',
        reason: 'signature does not match',
      },
      {
        what: 'signed 16 minutes ago',
        tokens: new EksTokenSource(
          { clusterName: CLUSTER, region: REGION },
          { credentials: async () => credentials, clock: { now: () => Date.now() - 16 * 60_000 } },
        ),
        refusedBy: 'webhook',
        reason: 'X-Amz-Date is more than 15 minutes old',
      },
      {
        what: 'signed with a wrong secret key',
        tokens: new EksTokenSource(
          { clusterName: CLUSTER, region: REGION },
          { credentials: async () => ({ ...credentials, secretAccessKey: 'not-the-key' }) },
        ),
        refusedBy: 'sts',
        reason: 'signature does not match',
      },
    ];
    for (const { what, tokens, refusedBy, reason } of cases) {
      const api = bearerClient(tokens);
      const answers = sts.answers.length;
      const reviews = webhook.reviews.length;
      const error = await readTenantCluster(api).catch((e: unknown) => e);
      expect({ what, reason: isClusterError(error) && error.reason }).toEqual({
        what,
        reason: 'Unauthorized',
      });
      const reasons =
        refusedBy === 'sts'
          ? sts.answers.slice(answers).map((a) => a.reason)
          : webhook.reviews.slice(reviews).map((r) => r.reason);
      expect({ what, reasons }).toEqual({ what, reasons: expect.arrayContaining([reason]) });
      expect(webhook.reviews.slice(reviews).every((r) => !r.authenticated)).toBe(true);
      await api.close();
    }
  });
});
