/**
 * Typed cluster errors. Adapters translate transport and HTTP failures into these so the engine
 * can decide (skip, retry next pass, abort) without parsing HTTP text.
 */
export const ClusterErrorReason = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Forbidden: 'Forbidden',
  Unauthorized: 'Unauthorized',
  Invalid: 'Invalid',
  TooManyRequests: 'TooManyRequests',
  /** 410 Gone: a continue token (or watch resourceVersion) too old for the server to honour. */
  Expired: 'Expired',
  Transport: 'Transport',
  /** An answer longer than the request allowed (`ListOptions.maxBytes`): cut off, not read. */
  TooLarge: 'TooLarge',
  Unknown: 'Unknown',
} as const;
export type ClusterErrorReason = (typeof ClusterErrorReason)[keyof typeof ClusterErrorReason];

export interface ClusterErrorOptions {
  /** HTTP status, when there was a response. */
  status?: number;
  /** Seconds from a `Retry-After` header (TooManyRequests). */
  retryAfterSeconds?: number;
  /** No answer in time: the server stalled (a Transport error), it did not refuse. */
  timedOut?: boolean;
  /** Field paths the server named (`Status.details.causes[].field`). */
  fields?: string[];
  cause?: unknown;
}

/** A failed cluster request, with a plain-words message (the server's `Status.message`). */
export class ClusterError extends Error {
  readonly reason: ClusterErrorReason;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** True when the request got no answer in time (see {@link ClusterErrorOptions.timedOut}). */
  readonly timedOut: boolean;
  /** Field paths the server's answer named, if any. */
  readonly fields: readonly string[];

  constructor(reason: ClusterErrorReason, message: string, options: ClusterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClusterError';
    this.reason = reason;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.timedOut = options.timedOut === true;
    this.fields = options.fields ?? [];
  }
}

/** True when `error` is a {@link ClusterError} of the given reason. */
export function isClusterError(error: unknown, reason?: ClusterErrorReason): error is ClusterError {
  return error instanceof ClusterError && (reason === undefined || error.reason === reason);
}
