/**
 * The fault matrix, credentials: a tenant apiserver whose certificate the kubeconfig's CA did not
 * sign, an expired client certificate on the host, and Secrets Manager throttling or failing (5xx)
 * when the function loads its kubeconfigs (aws-sdk-client-mock). Each fails the pass before any
 * write, names the cause without kubeconfig content, and the next clean pass converges.
 */
import {
  GetSecretValueCommand,
  InternalServiceError,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { useApis } from '../engine/support.js';
import { integrationClusters } from '../support/clusters.js';
import { expiredClientKubeconfig, unknownCaKubeconfig } from '../support/test-pki.js';
import { invokeSync } from './function-support.js';
import {
  expectConverges,
  expectNoWrongfulChange,
  faultedPass,
  recordRow,
  type Scenario,
  scenario,
} from './support.js';

const clusters = integrationClusters();
const apis = useApis();
const secretsManager = mockClient(SecretsManagerClient);

beforeAll(() => {
  process.env.AWS_REGION ??= 'eu-west-1';
});
afterAll(() => {
  secretsManager.restore();
});

async function checkAndConverge(s: Scenario, fault: string, run: Parameters<typeof recordRow>[1]) {
  const changes = await expectNoWrongfulChange(s);
  expect([...changes.created, ...changes.changed, ...changes.deleted]).toEqual([]);
  recordRow(fault, run, changes);
  await expectConverges(s);
}

describe('fault matrix: credentials', () => {
  it('TLS: a tenant server certificate the kubeconfig does not trust fails the pass, no write', async () => {
    const s = await scenario(apis(), 'tls-ca');
    const tenantApi = createClusterApi(await unknownCaKubeconfig(clusters.tenant));
    try {
      const run = await faultedPass(s, { tenantApi, hostApi: s.t.hostApi });
      expect(run.failure).toBeInstanceOf(Error);
      expect((run.failure as Error).message).toMatch(
        /^the tenant cluster is unreachable: cannot reach https:\/\/127\.0\.0\.1:\d+: [A-Z_]+ \(.*certificate.*\)$/,
      );
      await checkAndConverge(s, 'TLS: unknown CA (tenant)', run);
    } finally {
      await tenantApi.close();
    }
  });

  it('TLS: an expired client certificate on the host (401) fails the pass, no write', async () => {
    const s = await scenario(apis(), 'tls-exp');
    const hostApi = createClusterApi(await expiredClientKubeconfig(clusters.host));
    try {
      const run = await faultedPass(s, { tenantApi: s.t.tenantApi, hostApi });
      expect((run.failure as Error).message).toMatch(/could not read TenantCluster .*Unauthorized/);
      await checkAndConverge(s, 'TLS: expired client certificate (host)', run);
    } finally {
      await hostApi.close();
    }
  });

  it.each([
    [
      'throttling',
      Object.assign(new Error('Rate exceeded'), {
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    ],
    [
      '5xx',
      new InternalServiceError({ message: 'internal failure', $metadata: { httpStatusCode: 500 } }),
    ],
  ])(
    'Secrets Manager %s: the invocation fails before any write; the next one converges',
    async (what, error) => {
      const s = await scenario(apis(), `sm-${what === '5xx' ? '5xx' : 'thr'}`);
      secretsManager.reset();
      secretsManager.on(GetSecretValueCommand).rejects(error);
      const failed = await invokeSync({ tenant: s.t.name, remainingMs: 60_000 });
      expect(failed.error?.name).toBe('KubeconfigLoadError');
      expect(failed.error?.message).toContain(error.name);
      expect(failed.out).not.toContain('client-key-data');
      await checkAndConverge(s, `Secrets Manager ${what}`, {
        ms: failed.ms,
        logs: [],
        failure: failed.error,
      });

      secretsManager.reset();
      secretsManager
        .on(GetSecretValueCommand, { SecretId: `tenantplane/${s.t.name}/tenant` })
        .resolves({ SecretString: clusters.tenant.text })
        .on(GetSecretValueCommand, { SecretId: `tenantplane/${s.t.name}/host` })
        .resolves({ SecretString: clusters.host.text });
      const next = await invokeSync({ tenant: s.t.name, remainingMs: 60_000 });
      expect(next.error).toBeUndefined();
      expect(next.result?.complete).toBe(true);
    },
  );
});
