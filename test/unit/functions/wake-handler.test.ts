/**
 * The wake function as wired for Lambda: the function URL's event in, the tenant's token from
 * Secrets Manager (mocked with aws-sdk-client-mock), an asynchronous InvokeCommand of the
 * tenant's sync function with the wake event, one log line per request without the token. The
 * deciding itself is lib/wake (test/unit/wake); the shipped bundle against local AWS endpoints is
 * test/integration/functions/wake-bundle.test.ts.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { encodeWokenTenants } from '../../../functions/wake/contract.js';
import { createWakeFunction, wakeRequestOf } from '../../../functions/wake/handler.js';
import { readWakeSettings, WakeSettingsError } from '../../../functions/wake/settings.js';
import { captureOutput } from './support.js';

const TOKEN = 'wake-token-of-dev-0123456789abcdef';
const lambda = mockClient(LambdaClient);
const secrets = mockClient(SecretsManagerClient);

const ENV = {
  WAKE_TENANTS: encodeWokenTenants(
    new Map([
      ['dev', { quietSeconds: 30, timeoutSeconds: 300 }],
      [
        'team-a',
        { quietSeconds: 20, timeoutSeconds: 120, functionName: 'tenantplane-sync-tea-1a2b' },
      ],
    ]),
  ),
  WAKE_FUNCTION_STEM: 'tenantplane-sync',
  WAKE_SECRET_PREFIX: 'tenantplane/wake/',
};

function event(over: Partial<LambdaFunctionURLEvent> = {}, token = TOKEN): LambdaFunctionURLEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/tenants/dev',
    rawQueryString: '',
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requestContext: { http: { method: 'POST', path: '/tenants/dev' } },
    body: '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[]}',
    isBase64Encoded: false,
    ...over,
  } as LambdaFunctionURLEvent;
}

const output = captureOutput();
const logLines = output.lines;
beforeEach(() => {
  lambda.reset();
  secrets.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
  secrets
    .on(GetSecretValueCommand, { SecretId: 'tenantplane/wake/dev' })
    .resolves({ SecretString: TOKEN });
  secrets
    .on(GetSecretValueCommand, { SecretId: 'tenantplane/wake/team-a' })
    .resolves({ SecretString: 'token-of-team-a' });
});

function wakeFunction(now = () => 1_000_000) {
  return createWakeFunction({
    env: ENV,
    logger: new Logger({ serviceName: 'tenantplane-wake' }),
    lambda: new LambdaClient({ region: 'eu-west-1' }),
    secrets: new SecretsManagerClient({ region: 'eu-west-1' }),
    now,
  });
}

describe('the wake function', () => {
  it("invokes the tenant's sync function asynchronously with the wake event", async () => {
    const result = await wakeFunction()(event());
    expect(result).toMatchObject({ statusCode: 202 });
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]!.args[0].input;
    expect(input).toMatchObject({ FunctionName: 'tenantplane-sync-dev', InvocationType: 'Event' });
    expect(JSON.parse(new TextDecoder().decode(input.Payload as Uint8Array))).toEqual({
      tenant: 'dev',
      wake: true,
    });
    expect(logLines()).toEqual([
      expect.objectContaining({ level: 'INFO', tenant: 'dev', outcome: 'invoked', status: 202 }),
    ]);
  });

  it('a shortened function name comes from the tenant table', async () => {
    const result = await wakeFunction()(event({ rawPath: '/tenants/team-a' }, 'token-of-team-a'));
    expect(result.statusCode).toBe(202);
    expect(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.FunctionName).toBe(
      'tenantplane-sync-tea-1a2b',
    );
  });

  it('a burst of batches is one invoke, and the token is read once (cached)', async () => {
    const fn = wakeFunction();
    for (let i = 0; i < 20; i += 1) expect((await fn(event())).statusCode).toBe(202);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(1);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it.each([
    ['a wrong token', event({}, 'nope'), 403],
    ["another tenant's token", event({}, 'token-of-team-a'), 403],
    ['an unknown tenant', event({ rawPath: '/tenants/ghost' }), 403],
    ['no token', event({ headers: {} }), 401],
    [
      'GET',
      event({ requestContext: { http: { method: 'GET' } } } as Partial<LambdaFunctionURLEvent>),
      405,
    ],
    ['a body over 1 MiB', event({ body: 'x'.repeat(1024 * 1024 + 1) }), 413],
  ])('%s: %d, nothing invoked, no token logged', async (_, request, status) => {
    const result = await wakeFunction()(request);
    expect(result.statusCode).toBe(status);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
    const text = output.text();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('token-of-team-a');
    expect(logLines()).toEqual([expect.objectContaining({ level: 'WARN', status })]);
  });

  it('an unknown tenant reads no secret', async () => {
    await wakeFunction()(event({ rawPath: '/tenants/ghost' }));
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('a missing secret is a 403, an unavailable Secrets Manager a 503', async () => {
    secrets.reset();
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('not found'), { name: 'ResourceNotFoundException' }));
    expect((await wakeFunction()(event())).statusCode).toBe(403);
    secrets.reset();
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    expect((await wakeFunction()(event())).statusCode).toBe(503);
  });

  it('a failed invoke is a 502 (the webhook retries); the next batch invokes again', async () => {
    lambda.reset();
    lambda.on(InvokeCommand).rejectsOnce(new Error('TooManyRequestsException')).resolves({});
    const fn = wakeFunction();
    expect((await fn(event())).statusCode).toBe(502);
    expect((await fn(event())).statusCode).toBe(202);
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(2);
  });

  it('decodes a base64 body for its size', () => {
    const body = Buffer.from('{"items":[]}').toString('base64');
    expect(wakeRequestOf(event({ body, isBase64Encoded: true })).body).toBe('{"items":[]}');
  });
});

describe('readWakeSettings', () => {
  it('reads the table, the stem, the prefix and the defaults', () => {
    const s = readWakeSettings(ENV);
    expect(s.tenants.get('dev')).toEqual({ quietSeconds: 30, timeoutSeconds: 300 });
    expect(s).toMatchObject({ maxBodyBytes: 1024 * 1024, secretsMaxAgeSeconds: 60 });
  });

  it.each([
    [{ ...ENV, WAKE_TENANTS: '' }, /WAKE_TENANTS is not set/],
    [{ ...ENV, WAKE_TENANTS: '{' }, /not JSON/],
    [{ ...ENV, WAKE_TENANTS: '{"dev":[0,300]}' }, /WAKE_TENANTS.dev must be/],
    [{ ...ENV, WAKE_MAX_BODY_BYTES: 'lots' }, /WAKE_MAX_BODY_BYTES must be an integer/],
  ])('refuses %j', (env, message) => {
    expect(() => readWakeSettings(env)).toThrow(WakeSettingsError);
    expect(() => readWakeSettings(env)).toThrow(message);
  });
});
