/**
 * Translation of HTTP and transport failures into typed {@link ClusterError}s. Pure: it works on
 * anything shaped like `@kubernetes/client-node`'s `ApiException` (numeric `code`, raw `body`,
 * `headers`) and on the errors `fetch` throws, so it is unit-tested without a server.
 */
import { isRecord } from '../../common/index.js';
import { ClusterError, ClusterErrorReason, isClusterError } from '../../ports/index.js';

/** The failed response: what `ApiException` carries. */
export interface HttpFailure {
  /** HTTP status code. */
  code: number;
  /** Raw body text (a Kubernetes `Status` as JSON, usually) or an already parsed object. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the request was, for messages. */
export interface RequestDescription {
  /** The API server URL. */
  server: string;
  method?: string;
  path?: string;
}

/** The fields of a Kubernetes `Status` the mapping uses. */
export interface KubeStatus {
  message?: string;
  reason?: string;
  code?: number;
  details?: { retryAfterSeconds?: number; causes?: { field?: string; message?: string }[] };
}

/** Parses a `Status` body (text or object); `undefined` when it is not one. */
export function parseStatus(body: unknown): KubeStatus | undefined {
  let value = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (!isRecord(value)) return undefined;
  if (value.kind !== 'Status' && typeof value.message !== 'string') return undefined;
  const status: KubeStatus = {};
  if (typeof value.message === 'string') status.message = value.message;
  if (typeof value.reason === 'string') status.reason = value.reason;
  if (typeof value.code === 'number') status.code = value.code;
  if (isRecord(value.details)) {
    const details: NonNullable<KubeStatus['details']> = {};
    if (typeof value.details.retryAfterSeconds === 'number') {
      details.retryAfterSeconds = value.details.retryAfterSeconds;
    }
    if (Array.isArray(value.details.causes)) {
      details.causes = value.details.causes
        .filter(isRecord)
        .map((c) => (typeof c.field === 'string' ? { field: c.field } : {}));
    }
    status.details = details;
  }
  return status;
}

function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date. */
export function retryAfterSeconds(
  headers: Record<string, string> | undefined,
  status: KubeStatus | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = header(headers, 'retry-after')?.trim();
  if (value) {
    if (/^\d+$/.test(value)) return Number(value);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  return status?.details?.retryAfterSeconds;
}

/** `Status.reason`s that name a reason of ours; the server's word beats the status code. */
const BY_STATUS_REASON: ReadonlyMap<string, ClusterErrorReason> = new Map(
  (
    [
      ClusterErrorReason.NotFound,
      ClusterErrorReason.AlreadyExists,
      ClusterErrorReason.Conflict,
      ClusterErrorReason.Forbidden,
      ClusterErrorReason.Unauthorized,
      ClusterErrorReason.Invalid,
      ClusterErrorReason.TooManyRequests,
      ClusterErrorReason.Expired,
    ] as const
  ).map((reason) => [reason, reason]),
);

/** The fallback when the body is no `Status` with a known reason. */
const BY_HTTP_CODE: ReadonlyMap<number, ClusterErrorReason> = new Map([
  [400, ClusterErrorReason.Invalid],
  [422, ClusterErrorReason.Invalid],
  [401, ClusterErrorReason.Unauthorized],
  [403, ClusterErrorReason.Forbidden],
  [404, ClusterErrorReason.NotFound],
  [409, ClusterErrorReason.Conflict],
  [410, ClusterErrorReason.Expired],
  [429, ClusterErrorReason.TooManyRequests],
]);

function reasonFor(code: number, statusReason: string | undefined): ClusterErrorReason {
  return (
    (statusReason === undefined ? undefined : BY_STATUS_REASON.get(statusReason)) ??
    BY_HTTP_CODE.get(code) ??
    ClusterErrorReason.Unknown
  );
}

const MAX_BODY_IN_MESSAGE = 200;

/** Maps a failed HTTP response to a typed error whose message is the server's `Status.message`. */
export function clusterErrorFromResponse(
  failure: HttpFailure,
  request: RequestDescription,
  cause?: unknown,
): ClusterError {
  const status = parseStatus(failure.body);
  const reason = reasonFor(failure.code, status?.reason);
  let message = status?.message;
  if (!message) {
    const what = request.method && request.path ? `${request.method} ${request.path}` : 'request';
    const text =
      typeof failure.body === 'string' ? failure.body.trim().slice(0, MAX_BODY_IN_MESSAGE) : '';
    message = `${what} to ${request.server} failed with HTTP ${failure.code}${text ? `: ${text}` : ''}`;
  }
  const retryAfter = retryAfterSeconds(failure.headers, status);
  const fields = (status?.details?.causes ?? []).flatMap((c) => (c.field ? [c.field] : []));
  return new ClusterError(reason, message, {
    status: failure.code,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    ...(fields.length === 0 ? {} : { fields }),
    ...(cause === undefined ? {} : { cause }),
  });
}

/** `error.code`, looking through `cause` chains and `AggregateError`s (happy eyeballs). */
function findCode(error: unknown, depth = 0): { code: string; message: string } | undefined {
  if (!isRecord(error) && !(error instanceof Error)) return undefined;
  if (depth > 5) return undefined;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== '') {
    return { code: e.code, message: typeof e.message === 'string' ? e.message : '' };
  }
  const inner = findCode(e.cause, depth + 1);
  if (inner) return inner;
  if (Array.isArray(e.errors)) {
    for (const sub of e.errors) {
      const found = findCode(sub, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function innermostMessage(error: unknown): string | undefined {
  let current: unknown = error;
  let message: string | undefined;
  for (let depth = 0; depth < 6 && (isRecord(current) || current instanceof Error); depth++) {
    const e = current as { message?: unknown; cause?: unknown };
    if (typeof e.message === 'string' && e.message !== '') message = e.message;
    current = e.cause;
  }
  return message;
}

function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error) && !isRecord(error)) return false;
  const e = error as { name?: unknown; cause?: unknown };
  if (e.name === 'TimeoutError') return true;
  return e.cause !== undefined && e.cause !== error && isTimeout(e.cause);
}

/** Maps a failure to get any response (refused, DNS, TLS, timeout) to a `Transport` error. */
export function clusterErrorFromTransport(
  error: unknown,
  request: RequestDescription,
  timeoutMs?: number,
): ClusterError {
  let detail: string;
  const timedOut = isTimeout(error);
  if (timedOut) {
    detail = `timed out${timeoutMs === undefined ? '' : ` after ${timeoutMs} ms`} (ETIMEDOUT)`;
  } else {
    const found = findCode(error);
    if (found) {
      // TLS failures carry a code and a short explanation ("self-signed certificate").
      detail =
        found.message && !found.message.includes(found.code)
          ? `${found.code} (${found.message})`
          : found.code;
    } else if (error instanceof Error && error.name === 'AbortError') {
      detail = 'request aborted';
    } else {
      // `fetch failed` says nothing: the innermost cause says why ("bad port", ...).
      detail = innermostMessage(error) ?? String(error);
    }
  }
  return new ClusterError(
    ClusterErrorReason.Transport,
    `cannot reach ${request.server}: ${detail}`,
    { cause: error, timedOut },
  );
}

/** True for objects shaped like `ApiException`: a numeric HTTP `code`. */
export function isHttpFailure(error: unknown): error is HttpFailure {
  return (
    (error instanceof Error || isRecord(error)) &&
    typeof (error as { code?: unknown }).code === 'number'
  );
}

/** Any failure to a {@link ClusterError}: passes ClusterErrors through, maps the rest. */
export function toClusterError(
  error: unknown,
  request: RequestDescription,
  timeoutMs?: number,
): ClusterError {
  if (error instanceof ClusterError) return error;
  if (isHttpFailure(error)) return clusterErrorFromResponse(error, request, error);
  return clusterErrorFromTransport(error, request, timeoutMs);
}

/** The mark of a request the caller's deadline ended (see {@link isStall}). */
export const STALLED = ' stalled:';

/** Whether `error` is a request that got no answer before the caller's deadline. */
export function isStall(error: unknown): boolean {
  return isClusterError(error, 'Transport') && error.timedOut && error.message.includes(STALLED);
}
