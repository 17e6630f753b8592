/**
 * `--secrets <tenantSecretId>,<hostSecretId>`: the command loads both kubeconfigs from Secrets
 * Manager (mocked: AWS is unreachable here) and runs a real pass against the real clusters.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { run } from '../../../lib/cli/program.js';
import { TENANT_CLUSTER } from '../../../lib/ports/index.js';
import { captureIo } from '../../fixtures/capture-io.js';
import { integrationClusters } from '../support/clusters.js';

const secrets = mockClient(SecretsManagerClient);
let tenantApi: KubeClusterApi;
let hostApi: KubeClusterApi;
const previousRegion = process.env.AWS_REGION;

beforeAll(async () => {
  process.env.AWS_REGION = 'eu-west-1';
  const clusters = integrationClusters();
  secrets
    .on(GetSecretValueCommand, { SecretId: 'tp/cli-s/tenant' })
    .resolves({ SecretString: clusters.tenant.text });
  secrets
    .on(GetSecretValueCommand, { SecretId: 'tp/cli-s/host' })
    .resolves({ SecretString: JSON.stringify({ kubeconfig: clusters.host.text }) });
  secrets.on(GetSecretValueCommand, { SecretId: 'tp/missing' }).rejects(
    Object.assign(new Error('Secrets Manager can not find the specified secret.'), {
      name: 'ResourceNotFoundException',
    }),
  );
  tenantApi = createClusterApi(clusters.tenant);
  hostApi = createClusterApi(clusters.host);
  await hostApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cli-s-host' } });
  await hostApi.create({
    apiVersion: TENANT_CLUSTER.apiVersion,
    kind: TENANT_CLUSTER.kind,
    metadata: { name: 'cli-s' },
    spec: {
      hostNamespace: 'cli-s-host',
      toHost: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          exclude: { labelSelector: 'tenantplane-test!=cli-s' },
        },
      ],
    },
  });
  await tenantApi.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cli-s-ns' } });
  await tenantApi.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'from-secrets',
      namespace: 'cli-s-ns',
      labels: { 'tenantplane-test': 'cli-s' },
    },
    data: { a: 'b' },
  });
});

afterAll(async () => {
  secrets.restore();
  if (previousRegion === undefined) delete process.env.AWS_REGION;
  else process.env.AWS_REGION = previousRegion;
  await tenantApi?.close();
  await hostApi?.close();
});

describe('tenantplane --secrets', () => {
  it('loads both kubeconfigs from Secrets Manager and runs the pass', async () => {
    const c = captureIo();
    const code = await run(['sync', 'cli-s', '--secrets', 'tp/cli-s/tenant,tp/cli-s/host'], c);
    expect(c.stderr()).toBe('');
    expect(code).toBe(0);
    expect(c.stdout()).toMatch(
      /^Create\s+ConfigMap\s+cli-s-ns\/from-secrets\s+cli-s-host\/from-secrets-x-cli-s-ns-x-cli-s\s/m,
    );
    expect(
      secrets
        .commandCalls(GetSecretValueCommand)
        .map((call) => call.args[0].input.SecretId)
        .sort(),
    ).toEqual(['tp/cli-s/host', 'tp/cli-s/tenant']);
  });

  it('a missing secret fails with exit 1 naming the secret id', async () => {
    const c = captureIo();
    const code = await run(['status', 'cli-s', '--secrets', 'tp/missing,tp/missing'], c);
    expect(code).toBe(1);
    expect(c.stderr()).toBe(
      'error: host kubeconfig secret tp/missing: secret not found (ResourceNotFoundException)\n',
    );
  });
});
