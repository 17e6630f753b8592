/**
 * Shared by the tests of the shipped sync function of a followed or woken tenant (follow.test.ts,
 * wake.test.ts): the function built from its bundle as the CDK app ships it, its kubeconfigs
 * behind a local Secrets Manager endpoint, a seeded tenant on the real apiservers, one invocation
 * in a fresh Node 24 process, and the probes the tests wait on.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import type { InvocationFollow } from '../../../functions/sync/follow.js';
import { bundleSyncHandler } from '../../../infra/bundle.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import { type ClusterApi, type KubeObject, TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { type Invocation, invokeBundledHandler } from '../support/bundled-handler.js';
import { integrationClusters } from '../support/clusters.js';
import {
  type SecretsManagerEndpoint,
  startSecretsManagerEndpoint,
} from '../support/secrets-manager-endpoint.js';
import { seedTenant } from '../support/seed.js';
import { type ShippedFunction, shippedFunction } from '../support/shipped-function.js';

export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

export interface ShippedTenantOptions {
  /** Names the tenant `<base>-<run>`, its host namespace and its apps namespace. */
  base: string;
  quietSeconds: number;
  timeoutSeconds: number;
  /** A woken tenant (`wake: {}`, docs/wake.md). */
  wake?: boolean;
}

export interface ShippedTenant {
  readonly run: string;
  readonly tenant: string;
  readonly hostNamespace: string;
  readonly appsNamespace: string;
  /** The following are set once the file's `beforeAll` ran. */
  readonly fn: ShippedFunction;
  readonly tenantApi: ClusterApi;
  readonly hostApi: ClusterApi;
  /** One invocation of the bundled function with `event`, in a fresh Node process. */
  invoke(event: unknown, extraEnv?: Record<string, string>): Promise<Invocation>;
  /** A tenant ConfigMap of the apps namespace, labelled for this tenant (so it syncs). */
  configMap(name: string, data: Record<string, string>): KubeObject;
  /** A probe: the host copy of tenant ConfigMap `name`, once it is there. */
  hostCopy(name: string): () => Promise<KubeObject | undefined>;
  /** A probe: `true` once `status.follow` says a follow of the tenant is running. */
  followActive(): Promise<true | undefined>;
}

/**
 * A followed tenant's shipped sync function, built, configured and seeded in the file's
 * `beforeAll` (its seed ConfigMap `app-config` not yet synced); the endpoint closed and the
 * bundle removed in its `afterAll`.
 */
export function useShippedTenant(options: ShippedTenantOptions): ShippedTenant {
  const run = randomBytes(3).toString('hex');
  const tenant = `${options.base}-${run}`;
  const hostNamespace = `${options.base}-host-${run}`;
  const appsNamespace = `${options.base}-apps-${run}`;
  const tenantSecret = `tenantplane/tenants/${tenant}/kubeconfig`;
  const hostSecret = `tenantplane/host-${tenant}/kubeconfig`;
  const bundleDir = mkdtempSync(join(tmpdir(), `tenantplane-${options.base}-it-`));
  let endpoint: SecretsManagerEndpoint | undefined;
  let started: { fn: ShippedFunction; tenantApi: ClusterApi; hostApi: ClusterApi } | undefined;
  const state = () => {
    if (!started) throw new Error('the shipped function is set up in beforeAll');
    return started;
  };

  beforeAll(async () => {
    const clusters = integrationClusters();
    const tenantApi = createClusterApi(clusters.tenant);
    const hostApi = createClusterApi(clusters.host);
    await bundleSyncHandler(bundleDir);
    const fn = shippedFunction({
      tenant,
      tenantSecretId: tenantSecret,
      hostSecretId: hostSecret,
      bundleDir,
      follow: { quietSeconds: options.quietSeconds, timeoutSeconds: options.timeoutSeconds },
      ...(options.wake ? { wake: true } : {}),
    });
    endpoint = await startSecretsManagerEndpoint({
      [tenantSecret]: clusters.tenant.text,
      [hostSecret]: clusters.host.text,
    });
    await seedTenant({
      hostApi,
      tenant,
      hostNamespace,
      kinds: [CONFIGMAP],
      apps: { tenantApi, namespace: appsNamespace, passwordB64: 'cGFzcw==' },
    });
    started = { fn, tenantApi, hostApi };
  });

  afterAll(async () => {
    await endpoint?.close();
    rmSync(bundleDir, { recursive: true, force: true });
  });

  return {
    run,
    tenant,
    hostNamespace,
    appsNamespace,
    get fn() {
      return state().fn;
    },
    get tenantApi() {
      return state().tenantApi;
    },
    get hostApi() {
      return state().hostApi;
    },
    invoke: (event, extraEnv = {}) => {
      if (!endpoint) throw new Error('the shipped function is set up in beforeAll');
      return invokeBundledHandler({
        fn: state().fn,
        bundleDir,
        event,
        requestId: `req-${run}-${randomBytes(2).toString('hex')}`,
        extraEnv: {
          AWS_REGION: 'eu-west-1',
          AWS_ACCESS_KEY_ID: 'AKIDLOCALTENANTPLANE',
          AWS_SECRET_ACCESS_KEY: 'local-secret-access-key',
          AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
          AWS_CONFIG_FILE: join(bundleDir, 'no-aws-config'),
          AWS_SHARED_CREDENTIALS_FILE: join(bundleDir, 'no-aws-credentials'),
          ...extraEnv,
        },
      });
    },
    configMap: (name, data) => ({
      ...CONFIGMAP,
      metadata: { name, namespace: appsNamespace, labels: { 'tenantplane-test': tenant } },
      data,
    }),
    hostCopy: (name) => () =>
      state().hostApi.get(CONFIGMAP, hostNamespace, hostName(name, appsNamespace, tenant)),
    followActive: async () => {
      const tc = await state().hostApi.get(TENANT_CLUSTER, undefined, tenant);
      return (tc?.status as { follow?: { active?: boolean } } | undefined)?.follow?.active
        ? true
        : undefined;
    },
  };
}

/** Waits until `probe` answers; returns how long that took (ms). */
export async function until<T>(
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

/** The follow an invocation reported in its result. */
export const followOf = (run: Invocation) => (run.result as { follow?: InvocationFollow }).follow;
