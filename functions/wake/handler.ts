/**
 * The wake function (docs/wake.md): one per deployment, behind a Lambda function URL. A tenant's
 * apiserver posts its audit batches to `<url>/tenants/<tenant>` with the tenant's bearer token;
 * the function checks the token against the tenant's secret and invokes the tenant's sync function
 * asynchronously with `{"tenant": "<name>", "wake": true}`, once per burst. All of the deciding is
 * `lib/wake` (`createWakeHandler`); this file wires it: tokens from Secrets Manager (cached
 * briefly, never logged), the async invoke, the Powertools logger, the function URL's event.
 */
import { Buffer } from 'node:buffer';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import {
  createWakeHandler,
  type WakeDeps,
  type WakeRequest,
  type WakeResponse,
} from '../../lib/wake/index.js';
import { WAKE_SERVICE_NAME, wakeEvent } from './contract.js';
import { readWakeSettings, syncFunctionOf } from './settings.js';

export interface WakeFunctionDeps {
  env?: Record<string, string | undefined>;
  logger?: Logger;
  lambda?: LambdaClient;
  secrets?: SecretsManagerClient;
  now?: () => number;
}

/** What the function URL answers the apiserver (a `LambdaFunctionURLResult`). */
export interface WakeFunctionResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type WakeFunction = ((event: LambdaFunctionURLEvent) => Promise<WakeFunctionResult>) & {
  logger: Logger;
};

/** AWS errors that mean "no token for this tenant" (answered 403), not "try again" (503). */
const NO_SECRET = new Set(['ResourceNotFoundException', 'AccessDeniedException']);

function awsErrorName(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (current.name !== 'GetParameterError' || current.cause === undefined) return current.name;
    current = current.cause;
  }
  return current instanceof Error ? current.name : 'Error';
}

/** The function URL's request as the wake core reads it (a base64 body decoded for its size). */
export function wakeRequestOf(event: LambdaFunctionURLEvent): WakeRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(event.headers ?? {}))
    headers[name.toLowerCase()] = value;
  const body =
    event.body === undefined
      ? undefined
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  return {
    method: event.requestContext?.http?.method ?? '',
    path: event.rawPath ?? '',
    headers,
    body,
  };
}

/** Builds the handler (see the module doc); module scope keeps its cache and coalescing memory. */
export function createWakeFunction(deps: WakeFunctionDeps = {}): WakeFunction {
  const logger = deps.logger ?? new Logger({ serviceName: WAKE_SERVICE_NAME });
  const lambda = deps.lambda ?? new LambdaClient({});
  const secrets = new SecretsProvider({
    awsSdkV3Client: deps.secrets ?? new SecretsManagerClient({}),
  });
  let handle: ((request: WakeRequest) => Promise<WakeResponse>) | undefined;

  function configure(): (request: WakeRequest) => Promise<WakeResponse> {
    if (handle) return handle;
    const s = readWakeSettings(deps.env ?? process.env);
    const wakeDeps: WakeDeps = {
      tokenOf: async (tenant) => {
        if (!s.tenants.has(tenant)) return undefined;
        try {
          const value = await secrets.get(`${s.secretPrefix}${tenant}`, {
            maxAge: s.secretsMaxAgeSeconds,
          });
          return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
        } catch (error) {
          const name = awsErrorName(error);
          if (NO_SECRET.has(name)) return undefined;
          // The error's name only: an SDK message names the secret, never its value, but no
          // more than needed leaves the function.
          throw new Error(`the wake token could not be read (${name})`);
        }
      },
      invoke: async (tenant) => {
        const functionName = syncFunctionOf(s, tenant);
        if (functionName === undefined) throw new Error(`tenant ${tenant} is not woken`);
        await lambda.send(
          new InvokeCommand({
            FunctionName: functionName,
            InvocationType: 'Event',
            Payload: new TextEncoder().encode(JSON.stringify(wakeEvent(tenant))),
          }),
        );
      },
      now: deps.now ?? Date.now,
      log: (entry) => {
        const status = typeof entry.status === 'number' ? entry.status : 0;
        if (status >= 500) logger.error({ message: 'wake request', ...entry });
        else if (status >= 400) logger.warn({ message: 'wake request', ...entry });
        else logger.info({ message: 'wake request', ...entry });
      },
    };
    handle = createWakeHandler(wakeDeps, {
      maxBodyBytes: s.maxBodyBytes,
      windowOf: (tenant) => {
        const woken = s.tenants.get(tenant);
        return {
          quietMs: (woken?.quietSeconds ?? 0) * 1000,
          maxInvocationMs: (woken?.timeoutSeconds ?? 0) * 1000,
        };
      },
    });
    return handle;
  }

  async function wake(event: LambdaFunctionURLEvent): Promise<WakeFunctionResult> {
    const response = await configure()(wakeRequestOf(event));
    return {
      statusCode: response.statusCode,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: response.body,
    };
  }

  const handler = middy(wake)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      onError: async (request) => {
        // A misconfigured function: say so, without the request (it carries the token).
        const error = request.error;
        logger.error({
          message: 'wake failed',
          errorName: error instanceof Error ? error.name : 'Error',
          error: error instanceof Error ? error.message : String(error),
        });
      },
    }) as unknown as WakeFunction;
  handler.logger = logger;
  return handler;
}

export const handler = createWakeFunction();
