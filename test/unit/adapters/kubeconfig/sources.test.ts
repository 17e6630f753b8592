import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from '@aws-sdk/client-secrets-manager';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { KubeconfigSourceError } from '../../../../lib/adapters/kubeconfig/errors.js';
import { FileKubeconfigSource } from '../../../../lib/adapters/kubeconfig/file-source.js';
import {
  kubeconfigFromSecretString,
  SecretsManagerKubeconfigSource,
} from '../../../../lib/adapters/kubeconfig/secrets-manager-source.js';

const CANARY = 'CANARY-secret-0b9e44';
const YAML = `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user: {token: ${CANARY}}\n`;

async function sourceError(promise: Promise<unknown>): Promise<KubeconfigSourceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(KubeconfigSourceError);
    expect((error as Error).message).not.toContain(CANARY);
    return error as KubeconfigSourceError;
  }
  throw new Error('expected a KubeconfigSourceError');
}

describe('SecretsManagerKubeconfigSource', () => {
  const sm = mockClient(SecretsManagerClient);

  beforeEach(() => {
    sm.reset();
    jest.useFakeTimers({
      now: Date.parse('2030-01-01T00:00:00Z'),
      doNotFake: ['nextTick', 'setImmediate'],
    });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  function source(maxAgeSeconds?: number) {
    return new SecretsManagerKubeconfigSource({
      tenantSecretId: 'tenantplane/dev/tenant',
      hostSecretId: 'tenantplane/host',
      client: new SecretsManagerClient({ region: 'eu-west-1' }),
      ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
    });
  }

  it('loads each role from its own secret, raw YAML or JSON {"kubeconfig": ...}', async () => {
    sm.on(GetSecretValueCommand, { SecretId: 'tenantplane/dev/tenant' }).resolves({
      SecretString: YAML,
    });
    sm.on(GetSecretValueCommand, { SecretId: 'tenantplane/host' }).resolves({
      SecretString: JSON.stringify({ kubeconfig: YAML }),
    });
    const s = source();
    expect(await s.load('tenant')).toEqual({ text: YAML, origin: 'secret tenantplane/dev/tenant' });
    expect(await s.load('host')).toEqual({ text: YAML, origin: 'secret tenantplane/host' });
  });

  it('caches for maxAge: a second load within it makes no second call, after it one more', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: YAML });
    const s = source(60);
    await s.load('tenant');
    jest.setSystemTime(Date.parse('2030-01-01T00:00:59Z'));
    await s.load('tenant');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    jest.setSystemTime(Date.parse('2030-01-01T00:01:01Z'));
    await s.load('tenant');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    // The host secret is cached separately.
    await s.load('host');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(3);
    // Default TTL is five minutes.
    const d = source();
    await d.load('tenant');
    jest.setSystemTime(Date.parse('2030-01-01T00:05:00Z'));
    await d.load('tenant');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(4);
    d.clearCache();
    await d.load('tenant');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(5);
  });

  it('a missing secret names the secret id and the role', async () => {
    sm.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        $metadata: {},
        message: "Secrets Manager can't find the specified secret.",
      }),
    );
    const error = await sourceError(source().load('host'));
    expect(error.message).toBe(
      'host kubeconfig secret tenantplane/host: secret not found (ResourceNotFoundException)',
    );
    expect(error.role).toBe('host');
    expect(error.origin).toBe('secret tenantplane/host');
  });

  it('access denied and other AWS errors are named, not swallowed', async () => {
    sm.on(GetSecretValueCommand).rejects(
      new SecretsManagerServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: {},
        message: 'User is not authorized',
      }),
    );
    const error = await sourceError(source().load('tenant'));
    expect(error.message).toMatch(
      /^tenant kubeconfig secret tenantplane\/dev\/tenant: access denied.*AccessDeniedException/,
    );
    sm.reset();
    sm.on(GetSecretValueCommand).rejects(new Error('socket hang up'));
    expect((await sourceError(source().load('tenant'))).message).toBe(
      'tenant kubeconfig secret tenantplane/dev/tenant: cannot be read: Error: socket hang up',
    );
  });

  it('an empty or binary secret is a clear error', async () => {
    sm.on(GetSecretValueCommand).resolves({ SecretString: '' });
    expect((await sourceError(source().load('tenant'))).message).toBe(
      'tenant kubeconfig secret tenantplane/dev/tenant: is empty',
    );
    sm.reset();
    sm.on(GetSecretValueCommand).resolves({ SecretBinary: new TextEncoder().encode(CANARY) });
    expect((await sourceError(source().load('tenant'))).message).toMatch(/holds binary data/);
    sm.reset();
    sm.on(GetSecretValueCommand).resolves({ SecretString: '{"kubeconfig": ""}' });
    expect((await sourceError(source().load('tenant'))).message).toMatch(
      /JSON without a non-empty string field "kubeconfig"/,
    );
  });

  const refusals = [
    {
      name: 'exec (runs a command in the function)',
      user: `{exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: ["-c", "echo ${CANARY}"]}}`,
      says: 'user "u" runs a command (exec)',
    },
    {
      name: 'an auth provider (gcp runs its cmd-path)',
      user: `{auth-provider: {name: gcp, config: {cmd-path: /bin/${CANARY}}}}`,
      says: 'user "u" runs an auth provider (auth-provider)',
    },
    {
      name: 'a token file (would send /proc/self/environ as the token)',
      user: '{token-file: /proc/self/environ}',
      says: 'user "u" reads its token from a file (token-file)',
    },
    {
      name: 'a client key file',
      user: `{client-certificate-data: ${CANARY}, client-key: /var/task/key.pem}`,
      says: 'user "u" reads its client key from a file (client-key)',
    },
  ];

  it.each(refusals)('refuses a stored kubeconfig whose user uses $name', async ({ user, says }) => {
    // The refused user is not the current context's: every user of a stored kubeconfig counts.
    const text = `apiVersion: v1\nkind: Config\nusers:\n- name: ok\n  user: {token: t}\n- name: u\n  user: ${user}\n`;
    sm.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ kubeconfig: text }) });
    const error = await sourceError(source().load('tenant'));
    expect(error.message).toBe(
      `tenant kubeconfig secret tenantplane/dev/tenant: ${says}; a kubeconfig read from Secrets Manager must carry its credentials inline (a token or an embedded client certificate)`,
    );
  });

  it('accepts a stored kubeconfig that carries its credentials', async () => {
    const text = `users:\n- name: a\n  user: {token: ${CANARY}}\n- name: b\n  user: {client-certificate-data: x, client-key-data: y}\n`;
    sm.on(GetSecretValueCommand).resolves({ SecretString: text });
    expect((await source().load('host')).text).toBe(text);
  });
});

describe('kubeconfigFromSecretString', () => {
  it('accepts YAML, JSON-wrapped YAML, and a kubeconfig written as JSON', () => {
    expect(kubeconfigFromSecretString(YAML)).toBe(YAML);
    expect(kubeconfigFromSecretString(JSON.stringify({ kubeconfig: YAML }))).toBe(YAML);
    const asJson = JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [] });
    expect(kubeconfigFromSecretString(asJson)).toBe(asJson);
    expect(kubeconfigFromSecretString('{ not json')).toBe('{ not json');
    expect(kubeconfigFromSecretString(JSON.stringify({ kubeconfig: 42 }))).toBeUndefined();
    expect(kubeconfigFromSecretString('  ')).toBeUndefined();
  });
});

describe('FileKubeconfigSource', () => {
  it('reads each role from its file, with the absolute path as origin', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tp-kubeconfig-'));
    await writeFile(join(dir, 'tenant'), YAML);
    await writeFile(join(dir, 'host'), 'host: yaml\n');
    const s = new FileKubeconfigSource({
      tenantPath: join(dir, 'tenant'),
      hostPath: join(dir, 'host'),
    });
    expect(await s.load('tenant')).toEqual({ text: YAML, origin: join(dir, 'tenant') });
    expect((await s.load('host')).text).toBe('host: yaml\n');
  });

  it('a missing, empty or unreadable file names the role and the path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tp-kubeconfig-'));
    await writeFile(join(dir, 'empty'), '\n');
    const s = new FileKubeconfigSource({
      tenantPath: join(dir, 'nope'),
      hostPath: join(dir, 'empty'),
    });
    expect((await sourceError(s.load('tenant'))).message).toBe(
      `tenant kubeconfig ${join(dir, 'nope')}: file not found`,
    );
    expect((await sourceError(s.load('host'))).message).toBe(
      `host kubeconfig ${join(dir, 'empty')}: file is empty`,
    );
    const d = new FileKubeconfigSource({ tenantPath: dir, hostPath: dir });
    expect((await sourceError(d.load('tenant'))).message).toMatch(/is a directory/);
  });
});
