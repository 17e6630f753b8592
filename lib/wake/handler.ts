/**
 * The wake endpoint (docs/wake.md): a tenant's apiserver posts its audit batches to
 * `/tenants/<tenant>` with the tenant's bearer token; the endpoint checks who is calling and
 * invokes that tenant's sync function, once per burst (`coalesce.ts`). The same core serves the
 * Lambda function URL (functions/wake) and the local plane's endpoint.
 *
 * What it reads of a request, in order: the body's size (413 over the limit, before anything
 * else), the method (405), the path (404 unless `/tenants/<name>`), the bearer token (401 when
 * absent or malformed), the tenant's token (403 for a wrong token and for an unknown tenant or
 * one without wake alike, so the endpoint does not tell which tenants exist). Never the audit
 * events themselves: "tenant X changed" is all it needs, and all an attacker holding a token could
 * make it act on. The token is never logged.
 */
import { Buffer } from 'node:buffer';
import { errorMessage, isTenantName } from '../common/index.js';
import { type CoalesceDecision, WakeCoalescer, type WakeWindow } from './coalesce.js';
import { bearerToken, tokensEqual } from './token.js';

/** One HTTP request to the wake endpoint, as the Lambda function URL or a local server hands it over. */
export interface WakeRequest {
  method: string;
  /** The URL path: `/tenants/<tenant>` names the tenant that changed. */
  path: string;
  /** Header names lower-cased. The tenant's token comes as `authorization: Bearer <token>`. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body (an audit.k8s.io EventList), read only for its size. */
  body: string | undefined;
}

export interface WakeResponse {
  statusCode: number;
  body: string;
}

export interface WakeDeps {
  /** The wake token of `tenant`, or undefined for a tenant unknown or without wake. */
  tokenOf(tenant: string): Promise<string | undefined>;
  /** Invokes the tenant's sync function asynchronously with a wake event (does not wait for the pass). */
  invoke(tenant: string): Promise<void>;
  /** Epoch ms. */
  now(): number;
  /** One structured log entry per request: tenant, outcome, status; never the token. */
  log(entry: Readonly<Record<string, unknown>>): void;
}

export interface WakeOptions {
  /** Largest body accepted, in bytes (UTF-8); a larger one is refused with 413, unread. */
  maxBodyBytes: number;
  /** How long `tenant`'s woken function may follow (see `coalesce.ts`). */
  windowOf(tenant: string): WakeWindow;
  /** Audit delivery delay the coalescing allows for (default `DEFAULT_DELIVERY_SLACK_MS`). */
  deliverySlackMs?: number;
}

/** What every request's log entry says happened. */
export const WakeOutcome = {
  Invoked: 'invoked',
  Coalesced: 'coalesced',
  TooLarge: 'body-too-large',
  NotPost: 'method-not-allowed',
  NoRoute: 'no-route',
  NoToken: 'no-token',
  UnknownTenant: 'unknown-tenant',
  WrongToken: 'wrong-token',
  InvokeFailed: 'invoke-failed',
  TokenLookupFailed: 'token-lookup-failed',
} as const;
export type WakeOutcome = (typeof WakeOutcome)[keyof typeof WakeOutcome];

/** Default body limit: audit batches of Metadata-level events are small; 1 MiB is generous. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const PATH = /^\/tenants\/([^/]+)\/?$/;

const STATUS: Record<WakeOutcome, number> = {
  [WakeOutcome.Invoked]: 202,
  [WakeOutcome.Coalesced]: 202,
  [WakeOutcome.TooLarge]: 413,
  [WakeOutcome.NotPost]: 405,
  [WakeOutcome.NoRoute]: 404,
  [WakeOutcome.NoToken]: 401,
  [WakeOutcome.UnknownTenant]: 403,
  [WakeOutcome.WrongToken]: 403,
  // 5xx: the audit webhook retries with back-off, then drops the batch; the schedule is the net.
  [WakeOutcome.InvokeFailed]: 502,
  [WakeOutcome.TokenLookupFailed]: 503,
};

/** The body of each status: short, and the same for every 403 (nothing about which tenants exist). */
const BODY: Record<number, string> = {
  202: 'accepted',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  413: 'payload too large',
  502: 'bad gateway',
  503: 'service unavailable',
};

/** The tenant named by a wake path, or undefined when the path is not `/tenants/<name>`. */
export function tenantOfPath(path: string): string | undefined {
  const match = PATH.exec(path.split('?')[0] ?? '');
  if (match?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Builds the wake endpoint's request handler (see the module doc). Its coalescing memory lives as
 * long as the returned function: create it once per process.
 */
export function createWakeHandler(
  deps: WakeDeps,
  options: WakeOptions,
): (request: WakeRequest) => Promise<WakeResponse> {
  const coalescer = new WakeCoalescer(options.deliverySlackMs);
  const answer = (
    outcome: WakeOutcome,
    fields: Readonly<Record<string, unknown>> = {},
  ): WakeResponse => {
    const status = STATUS[outcome];
    deps.log({ message: 'wake request', ...fields, outcome, status });
    return { statusCode: status, body: BODY[status] ?? '' };
  };

  return async (request) => {
    const bytes = request.body === undefined ? 0 : Buffer.byteLength(request.body, 'utf8');
    if (bytes > options.maxBodyBytes)
      return answer(WakeOutcome.TooLarge, { bytes, maxBodyBytes: options.maxBodyBytes });
    if (request.method.toUpperCase() !== 'POST')
      return answer(WakeOutcome.NotPost, { method: request.method });
    const tenant = tenantOfPath(request.path);
    if (tenant === undefined) return answer(WakeOutcome.NoRoute);
    const presented = bearerToken(request.headers.authorization);
    if (presented === undefined) return answer(WakeOutcome.NoToken, { tenant });
    // A name that cannot be a tenant's is answered as an unknown tenant, without a lookup.
    let expected: string | undefined;
    if (isTenantName(tenant)) {
      try {
        expected = await deps.tokenOf(tenant);
      } catch (error) {
        return answer(WakeOutcome.TokenLookupFailed, { tenant, error: errorMessage(error) });
      }
    }
    if (expected === undefined) return answer(WakeOutcome.UnknownTenant, { tenant });
    if (!tokensEqual(presented, expected)) return answer(WakeOutcome.WrongToken, { tenant });

    const decision: CoalesceDecision = coalescer.change(
      tenant,
      deps.now(),
      options.windowOf(tenant),
    );
    if (!decision.invoke) return answer(WakeOutcome.Coalesced, { tenant, reason: decision.reason });
    try {
      await deps.invoke(tenant);
    } catch (error) {
      coalescer.invokeFailed(tenant);
      return answer(WakeOutcome.InvokeFailed, { tenant, error: errorMessage(error) });
    }
    return answer(WakeOutcome.Invoked, { tenant, reason: decision.reason, bytes });
  };
}
