/**
 * `tenantplane wake-config`: the audit policy and flags without any token; the webhook kubeconfig
 * with the token only when asked for (printed, or written 0600 with the policy), the token from
 * Secrets Manager (mocked) or a file; bad usage exits 2 and prints no token. The TenantCluster
 * read from a real host is left to the kinds flag here (the read is `status`'s, tested there).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { load } from 'js-yaml';
import { parseKinds } from '../../../lib/cli/commands/wake-config-run.js';
import { ExitCode } from '../../../lib/cli/exit-codes.js';
import { run } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

const TOKEN = 'wakeTokenOfDev0123456789abcdefABCDEF';
const URL = 'https://abc123.lambda-url.eu-west-1.on.aws/';
const sm = mockClient(SecretsManagerClient);
const dir = mkdtempSync(join(tmpdir(), 'tenantplane-wake-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeEach(() => {
  sm.reset();
  sm.on(GetSecretValueCommand, { SecretId: 'tenantplane/wake/dev' }).resolves({
    SecretString: TOKEN,
  });
  sm.on(GetSecretValueCommand, { SecretId: 'prod/tenantplane/wake/dev' }).resolves({
    SecretString: `${TOKEN}-prod`,
  });
});

async function wakeConfig(...args: string[]) {
  const io = captureIo();
  const code = await run(['wake-config', 'dev', ...args], io, {
    secretsManagerClient: new SecretsManagerClient({ region: 'eu-west-1' }),
  });
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('tenantplane wake-config', () => {
  it('prints the policy of the given kinds and the flags, reading no token', async () => {
    const { code, out } = await wakeConfig('--kinds', 'v1/ConfigMap,apps/v1/Deployment,v1/Pod');
    expect(code).toBe(ExitCode.Ok);
    const policy = load(out) as { kind: string; rules: Array<Record<string, unknown>> };
    expect(policy.kind).toBe('Policy');
    expect(policy.rules[2]).toEqual({
      level: 'Metadata',
      verbs: ['create', 'update', 'patch', 'delete', 'deletecollection'],
      resources: [
        { group: '', resources: ['configmaps', 'pods'] },
        { group: 'apps', resources: ['deployments'] },
      ],
    });
    expect(out).toContain('--audit-webhook-mode=batch');
    expect(out).toContain('--audit-webhook-batch-max-wait=250ms');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('--webhook-kubeconfig prints the kubeconfig with the token from Secrets Manager', async () => {
    const { code, out } = await wakeConfig('--url', URL, '--webhook-kubeconfig');
    expect(code).toBe(ExitCode.Ok);
    const kubeconfig = load(out) as {
      clusters: Array<{ cluster: { server: string } }>;
      users: Array<{ user: { token: string } }>;
    };
    expect(kubeconfig.clusters[0]!.cluster.server).toBe(`${URL}tenants/dev`);
    expect(kubeconfig.users[0]!.user.token).toBe(TOKEN);
  });

  it('--stage names the stage token secret; --token-file reads a file', async () => {
    const staged = await wakeConfig('--url', URL, '--webhook-kubeconfig', '--stage', 'prod');
    expect(staged.out).toContain(`${TOKEN}-prod`);
    const file = join(dir, 'token');
    writeFileSync(file, 'from-a-file\n');
    const local = await wakeConfig(
      '--url',
      'http://127.0.0.1:9000',
      '--webhook-kubeconfig',
      '--token-file',
      file,
    );
    expect(local.out).toContain('"from-a-file"');
    expect(local.out).toContain('"http://127.0.0.1:9000/tenants/dev"');
  });

  it('--out-dir writes both files, the kubeconfig readable by its owner only, and prints no token', async () => {
    const out = join(dir, 'out');
    const result = await wakeConfig('--kinds', 'v1/ConfigMap', '--url', URL, '--out-dir', out);
    expect(result.code).toBe(ExitCode.Ok);
    expect(result.out).not.toContain(TOKEN);
    expect(result.out).toContain(`--audit-policy-file=${join(out, 'audit-policy.yaml')}`);
    expect(readFileSync(join(out, 'audit-webhook.kubeconfig'), 'utf8')).toContain(TOKEN);
    expect(statSync(join(out, 'audit-webhook.kubeconfig')).mode & 0o777).toBe(0o600);
    expect(load(readFileSync(join(out, 'audit-policy.yaml'), 'utf8'))).toMatchObject({
      kind: 'Policy',
    });
  });

  it.each([
    [['--webhook-kubeconfig'], /--url is required/],
    [['--url', URL, '--webhook-kubeconfig', '--out-dir', dir], /not both/],
    [
      ['--url', URL, '--webhook-kubeconfig', '--token-file', 'f', '--token-secret-id', 's'],
      /not both/,
    ],
    [['--kinds', 'ConfigMap'], /is not <apiVersion>\/<Kind>/],
  ])('%j is bad usage (exit 2)', async (args, message) => {
    const { code, err, out } = await wakeConfig(...args);
    expect(code).toBe(ExitCode.Usage);
    expect(err).toMatch(message);
    expect(out + err).not.toContain(TOKEN);
  });

  it('a token secret it cannot read: one line naming the secret and the AWS error, exit 1', async () => {
    sm.reset();
    sm.on(GetSecretValueCommand).rejects(
      Object.assign(new Error('no such secret'), { name: 'ResourceNotFoundException' }),
    );
    const { code, err } = await wakeConfig('--url', URL, '--webhook-kubeconfig');
    expect(code).toBe(ExitCode.Failed);
    expect(err).toContain(
      'the wake token secret tenantplane/wake/dev cannot be read (ResourceNotFoundException)',
    );
  });
});

describe('parseKinds', () => {
  it('takes the apiVersion before the last slash', () => {
    expect(parseKinds(' v1/Secret, networking.k8s.io/v1/Ingress ,')).toEqual([
      { apiVersion: 'v1', kind: 'Secret' },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' },
    ]);
  });
});
