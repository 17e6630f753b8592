/**
 * `tenantplane secrets put`: the built command writes a tenant's kubeconfigs into a local Secrets
 * Manager endpoint (the service's wire protocol, SigV4-signed by the SDK), and `sync --secrets`
 * then runs a real pass from exactly those secrets, as the function would read them. The
 * kubeconfigs never appear in the output; a kubeconfig the function would refuse is never written.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { integrationClusters } from '../support/clusters.js';
import {
  type SecretsManagerEndpoint,
  startSecretsManagerEndpoint,
} from '../support/secrets-manager-endpoint.js';
import { seedTenant } from '../support/seed.js';
import { expectExit, tenantplane } from './support.js';

const TENANT = 'cli-secrets-put';
const HOST_NS = 'cli-secrets-put-host';
const TENANT_ID = `tenantplane/tenants/${TENANT}/kubeconfig`;
const HOST_ID = `tenantplane/host/${TENANT}/kubeconfig`;

let endpoint: SecretsManagerEndpoint;
let hostApi: KubeClusterApi;
let tmp: string;
let configPath: string;
let env: NodeJS.ProcessEnv;

/** Every credential value of a kubeconfig: none may be printed. */
function credentialValues(text: string): string[] {
  const doc = parse(text) as { users: { user: Record<string, unknown> }[] };
  return doc.users.flatMap((u) =>
    Object.values(u.user).filter((v): v is string => typeof v === 'string' && v.length > 16),
  );
}

beforeAll(async () => {
  const clusters = integrationClusters();
  hostApi = createClusterApi(clusters.host);
  endpoint = await startSecretsManagerEndpoint();
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-secrets-put-'));
  configPath = join(tmp, 'tenants.yaml');
  await writeFile(
    configPath,
    stringify({
      tenants: [
        {
          name: TENANT,
          schedule: 'rate(5 minutes)',
          tenantSecretId: TENANT_ID,
          hostSecretId: HOST_ID,
        },
      ],
    }),
  );
  // AWS is unreachable here: static test credentials, the local endpoint for Secrets Manager.
  env = {
    ...process.env,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint.url,
    AWS_ACCESS_KEY_ID: 'AKIDTESTTESTTEST',
    AWS_SECRET_ACCESS_KEY: 'test-secret-key',
    AWS_REGION: 'eu-west-1',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  delete env.AWS_PROFILE;
  delete env.KUBECONFIG;
  await seedTenant({
    hostApi,
    tenant: TENANT,
    hostNamespace: HOST_NS,
    kinds: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
  });
}, 60_000);

afterAll(async () => {
  await endpoint?.close();
  await hostApi?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('tenantplane secrets put', () => {
  it('creates both secrets in the function’s format, prints no credential, and a pass runs from them', async () => {
    const clusters = integrationClusters();
    const run = await tenantplane(
      [
        'secrets',
        'put',
        TENANT,
        '--tenant-kubeconfig',
        clusters.tenantKubeconfigPath,
        '--host-kubeconfig',
        clusters.hostKubeconfigPath,
        '--config',
        configPath,
      ],
      env,
    );
    expectExit(run, 0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^Created secret ${TENANT_ID}: the tenant kubeconfig of tenant ${TENANT} \\(from .*, version [0-9a-f-]+\\), read back as the function reads it\\.\\nCreated secret ${HOST_ID}: the host kubeconfig`,
      ),
    );
    expect(endpoint.secretString(TENANT_ID)).toBe(
      JSON.stringify({ kubeconfig: clusters.tenant.text }),
    );
    expect(endpoint.secretString(HOST_ID)).toBe(JSON.stringify({ kubeconfig: clusters.host.text }));
    expect(endpoint.created.get(HOST_ID)?.tags).toEqual([
      { Key: 'tenantplane:tenant', Value: TENANT },
      { Key: 'tenantplane:role', Value: 'host' },
    ]);
    for (const value of [
      ...credentialValues(clusters.tenant.text),
      ...credentialValues(clusters.host.text),
    ]) {
      expect(run.stdout + run.stderr).not.toContain(value);
    }
    // Signed requests, as the SDK sends them to AWS.
    expect(endpoint.requests.every((r) => r.authorization?.startsWith('AWS4-HMAC-SHA256'))).toBe(
      true,
    );

    const pass = await tenantplane(['plan', TENANT, '--secrets', `${TENANT_ID},${HOST_ID}`], env);
    expectExit(pass, 0);
  });

  it('a second put writes a new version of each', async () => {
    const clusters = integrationClusters();
    const run = await tenantplane(
      [
        'secrets',
        'put',
        TENANT,
        '--host-kubeconfig',
        clusters.hostKubeconfigPath,
        '--config',
        configPath,
      ],
      env,
    );
    expectExit(run, 0);
    expect(run.stdout).toMatch(new RegExp(`^Updated secret ${HOST_ID}: the host kubeconfig`));
  });

  it('a kubeconfig the function would refuse (exec) is not written: exit 1, the user and the field named', async () => {
    const clusters = integrationClusters();
    const doc = parse(clusters.host.text) as { users: { name: string; user: unknown }[] };
    const userName = doc.users[0]?.name;
    doc.users = [
      {
        name: userName ?? 'u',
        user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } },
      },
    ];
    const execKubeconfig = join(tmp, 'exec.kubeconfig');
    await writeFile(execKubeconfig, stringify(doc));
    const before = endpoint.requests.length;
    const run = await tenantplane(
      [
        'secrets',
        'put',
        TENANT,
        '--tenant-kubeconfig',
        clusters.tenantKubeconfigPath,
        '--host-kubeconfig',
        execKubeconfig,
        '--config',
        configPath,
      ],
      env,
    );
    expectExit(run, 1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: host kubeconfig ${execKubeconfig}: .*exec.*kubectl config view --flatten`,
      ),
    );
    // Neither was written: both are checked before the first write.
    expect(endpoint.requests.length).toBe(before);
  });

  it('a tenant the config does not list, without --*-secret-id: bad usage (exit 2), nothing sent', async () => {
    const clusters = integrationClusters();
    const before = endpoint.requests.length;
    const run = await tenantplane(
      [
        'secrets',
        'put',
        'not-listed',
        '--host-kubeconfig',
        clusters.hostKubeconfigPath,
        '--config',
        configPath,
      ],
      env,
    );
    expectExit(run, 2);
    expect(run.stderr).toContain(
      `error: no secret id for the host kubeconfig of tenant not-listed (${configPath} lists no tenant not-listed): give --host-secret-id`,
    );
    expect(endpoint.requests.length).toBe(before);
  });
});
