/**
 * `tenantplane secrets put` in-process with a mocked Secrets Manager client: the value written is
 * the function's format, a missing secret is created with its tags and KMS key, a refusal is one
 * line naming the secret (never the kubeconfig), and nothing is printed of the kubeconfig.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { kubeconfigFromSecretString } from '../../../lib/adapters/kubeconfig/secrets-manager-source.js';
import { run } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

const TOKEN = 'sensitive-bearer-token-0123456789abcdef';
const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: host
    cluster: {server: "https://host.example:6443"}
users:
  - name: tenantplane-sync-dev
    user: {token: ${TOKEN}}
contexts:
  - name: host
    context: {cluster: host, user: tenantplane-sync-dev}
current-context: host
`;

const sm = mockClient(SecretsManagerClient);
let tmp: string;
let kubeconfigPath: string;
/** The value each secret holds, as the mocked service stores it. */
const stored = new Map<string, string>();

function notFound(): Error {
  return Object.assign(new Error("Secrets Manager can't find the specified secret."), {
    name: 'ResourceNotFoundException',
  });
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tenantplane-secrets-unit-'));
  kubeconfigPath = join(tmp, 'host.kubeconfig');
  await writeFile(kubeconfigPath, KUBECONFIG);
});

afterAll(async () => {
  sm.restore();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  sm.reset();
  stored.clear();
  sm.on(PutSecretValueCommand).callsFake((input: { SecretId: string; SecretString: string }) => {
    if (!stored.has(input.SecretId)) throw notFound();
    stored.set(input.SecretId, input.SecretString);
    return { VersionId: 'v-2' };
  });
  sm.on(CreateSecretCommand).callsFake((input: { Name: string; SecretString: string }) => {
    stored.set(input.Name, input.SecretString);
    return { VersionId: 'v-1' };
  });
  sm.on(GetSecretValueCommand).callsFake((input: { SecretId: string }) => {
    const value = stored.get(input.SecretId);
    if (value === undefined) throw notFound();
    return { SecretString: value };
  });
});

const put = (args: string[]) => {
  const io = captureIo();
  const client = new SecretsManagerClient({ region: 'eu-west-1' });
  return run(['secrets', 'put', 'dev', ...args], io, { secretsManagerClient: client }).then(
    (code) => ({ code, io }),
  );
};

describe('tenantplane secrets put', () => {
  it('creates a missing secret in the function’s format, tagged, with the KMS key; prints no credential', async () => {
    const { code, io } = await put([
      '--host-kubeconfig',
      kubeconfigPath,
      '--host-secret-id',
      'tp/host/dev',
      '--kms-key-id',
      'alias/tenantplane',
    ]);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    expect(io.stdout()).toBe(
      `Created secret tp/host/dev: the host kubeconfig of tenant dev (from ${kubeconfigPath}, version v-1), read back as the function reads it.\n`,
    );
    expect(io.stdout()).not.toContain(TOKEN);
    const value = stored.get('tp/host/dev') as string;
    expect(JSON.parse(value)).toEqual({ kubeconfig: KUBECONFIG });
    expect(kubeconfigFromSecretString(value)).toBe(KUBECONFIG);
    expect(sm.commandCalls(CreateSecretCommand)[0]?.args[0].input).toMatchObject({
      Name: 'tp/host/dev',
      KmsKeyId: 'alias/tenantplane',
      Tags: [
        { Key: 'tenantplane:tenant', Value: 'dev' },
        { Key: 'tenantplane:role', Value: 'host' },
      ],
    });
  });

  it('an existing secret gets a new version; nothing is created', async () => {
    stored.set('tp/host/dev', 'old');
    const { code, io } = await put([
      '--host-kubeconfig',
      kubeconfigPath,
      '--host-secret-id',
      'tp/host/dev',
    ]);
    expect(code).toBe(0);
    expect(io.stdout()).toMatch(/^Updated secret tp\/host\/dev: .*version v-2/);
    expect(sm.commandCalls(CreateSecretCommand)).toHaveLength(0);
  });

  it('the secret ids come from the tenants config', async () => {
    const config = join(tmp, 'tenants.yaml');
    await writeFile(
      config,
      'tenants:\n  - name: dev\n    tenantSecretId: tp/t/dev\n    hostSecretId: tp/h/dev\n',
    );
    const { code } = await put(['--host-kubeconfig', kubeconfigPath, '--config', config]);
    expect(code).toBe(0);
    expect([...stored.keys()]).toEqual(['tp/h/dev']);
  });

  it('a refused write: exit 1, one line naming the secret and the AWS error, no content', async () => {
    sm.on(PutSecretValueCommand).rejects(
      Object.assign(new Error('User is not authorized to perform PutSecretValue'), {
        name: 'AccessDeniedException',
      }),
    );
    const { code, io } = await put([
      '--host-kubeconfig',
      kubeconfigPath,
      '--host-secret-id',
      'tp/host/dev',
    ]);
    expect(code).toBe(1);
    expect(io.stderr()).toBe(
      'error: could not write the host kubeconfig of tenant dev to secret tp/host/dev: AccessDeniedException: User is not authorized to perform PutSecretValue\n',
    );
    expect(io.stdout() + io.stderr()).not.toContain(TOKEN);
  });

  it.each([
    [[], /give --tenant-kubeconfig, --host-kubeconfig or both/],
    [
      ['--host-kubeconfig', 'x', '--config', '/nonexistent/tenants.yaml'],
      /does not exist\): give --host-secret-id/,
    ],
  ])('%j is bad usage (exit 2), nothing sent', async (args, message) => {
    const { code, io } = await put(args);
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(message);
    expect(sm.calls()).toHaveLength(0);
  });
});
