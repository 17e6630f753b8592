/**
 * The wake function as shipped: its esbuild bundle (built as the CDK app builds it) run in a fresh
 * Node 24 process with the environment the wake stack gives it, handed Lambda function URL events,
 * against local endpoints speaking the Secrets Manager and Lambda Invoke wire protocols (reached by
 * the bundled AWS SDK through AWS_ENDPOINT_URL_SECRETS_MANAGER and AWS_ENDPOINT_URL_LAMBDA). A
 * tenant with its token invokes its sync function once per burst, asynchronously, with the wake
 * event; a wrong token, another tenant's token and an unknown tenant invoke nothing; no token
 * reaches the output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bundleSyncHandler, bundleWakeHandler } from '../../../infra/bundle.js';
import { invokeBundledHandler } from '../support/bundled-handler.js';
import {
  type LambdaInvokeEndpoint,
  startLambdaInvokeEndpoint,
} from '../support/lambda-invoke-endpoint.js';
import {
  type SecretsManagerEndpoint,
  startSecretsManagerEndpoint,
} from '../support/secrets-manager-endpoint.js';
import { type ShippedFunction, shippedWakeFunction } from '../support/shipped-function.js';

const TOKENS = {
  dev: `dev${randomBytes(16).toString('hex')}`,
  qa: `qa${randomBytes(16).toString('hex')}`,
};
const bundleDir = mkdtempSync(join(tmpdir(), 'tenantplane-wake-bundle-it-'));
const syncDir = mkdtempSync(join(tmpdir(), 'tenantplane-sync-bundle-it-'));
let secrets: SecretsManagerEndpoint;
let lambda: LambdaInvokeEndpoint;
let fn: ShippedFunction;

beforeAll(async () => {
  await Promise.all([bundleWakeHandler(bundleDir), bundleSyncHandler(syncDir)]);
  fn = shippedWakeFunction({
    tenants: ['dev', 'qa'],
    bundleDir: syncDir,
    wakeBundleDir: bundleDir,
  });
  secrets = await startSecretsManagerEndpoint({
    'tenantplane/wake/dev': TOKENS.dev,
    'tenantplane/wake/qa': TOKENS.qa,
  });
  lambda = await startLambdaInvokeEndpoint(['tenantplane-sync-dev', 'tenantplane-sync-qa']);
}, 120_000);

afterAll(async () => {
  await Promise.all([secrets?.close(), lambda?.close()]);
  rmSync(bundleDir, { recursive: true, force: true });
  rmSync(syncDir, { recursive: true, force: true });
});

/** A function URL event (payload format 2.0) as the audit webhook's POST arrives. */
function urlEvent(
  path: string,
  token: string | undefined,
  body = '{"kind":"EventList","items":[]}',
) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    requestContext: { http: { method: 'POST', path } },
    body,
    isBase64Encoded: false,
  };
}

/** A body limit set through the function's own variable (a 1 MiB body would not fit in argv). */
const SMALL_LIMIT = 4096;

function invoke(events: unknown[]) {
  return invokeBundledHandler({
    fn,
    bundleDir,
    event: undefined,
    events,
    requestId: `req-${randomBytes(3).toString('hex')}`,
    extraEnv: {
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOCALTENANTPLANE',
      AWS_SECRET_ACCESS_KEY: 'local-secret-access-key',
      AWS_SESSION_TOKEN: 'local-session-token',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
      WAKE_MAX_BODY_BYTES: String(SMALL_LIMIT),
      AWS_CONFIG_FILE: join(bundleDir, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(bundleDir, 'no-aws-credentials'),
    },
  });
}

const statuses = (result: unknown) =>
  (result as Array<{ statusCode: number }>).map((r) => r.statusCode);

describe('the shipped wake function', () => {
  it('a burst of batches with the tenant token: one async invoke of its sync function, signed', async () => {
    lambda.invocations.length = 0;
    const run = await invoke(
      Array.from({ length: 10 }, () => urlEvent('/tenants/dev', TOKENS.dev)),
    );
    expect(run.error).toBeUndefined();
    expect(statuses(run.result)).toEqual(Array(10).fill(202));
    expect(lambda.invocations).toEqual([
      expect.objectContaining({
        functionName: 'tenantplane-sync-dev',
        invocationType: 'Event',
        payload: { tenant: 'dev', wake: true },
      }),
    ]);
    expect(lambda.invocations[0]!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDLOCALTENANTPLANE\//,
    );
    // The token read once, for the whole burst (cached).
    expect(secrets.requests.filter((r) => r.secretId === 'tenantplane/wake/dev')).toHaveLength(1);
    const out = run.stdout + run.stderr;
    expect(out).not.toContain(TOKENS.dev);
    expect(run.node).toMatch(/^v24\./);
  });

  it("no token, a wrong one, another tenant's, an unknown tenant, a body too big: nothing invoked", async () => {
    lambda.invocations.length = 0;
    const run = await invoke([
      urlEvent('/tenants/dev', undefined),
      urlEvent('/tenants/dev', 'not-the-token'),
      urlEvent('/tenants/dev', TOKENS.qa),
      urlEvent('/tenants/ghost', TOKENS.dev),
      urlEvent('/tenants/dev', TOKENS.dev, 'x'.repeat(SMALL_LIMIT + 1)),
    ]);
    expect(run.error).toBeUndefined();
    expect(statuses(run.result)).toEqual([401, 403, 403, 403, 413]);
    expect(lambda.invocations).toEqual([]);
    const out = run.stdout + run.stderr;
    for (const token of Object.values(TOKENS)) expect(out).not.toContain(token);
    // Powertools writes warnings to stderr.
    const lines = `${run.stdout}\n${run.stderr}`
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.level, l.outcome, l.status])).toEqual([
      ['WARN', 'no-token', 401],
      ['WARN', 'wrong-token', 403],
      ['WARN', 'wrong-token', 403],
      ['WARN', 'unknown-tenant', 403],
      ['WARN', 'body-too-large', 413],
    ]);
  });
});
