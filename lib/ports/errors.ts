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
  Transport: 'Transport',
  Unknown: 'Unknown',
} as const;
export type ClusterErrorReason = (typeof ClusterErrorReason)[keyof typeof ClusterErrorReason];

export interface ClusterErrorOptions {
  /** HTTP status, when there was a response. */
  status?: number;
  /** Seconds from a `Retry-After` header (TooManyRequests). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** A failed cluster request, with a plain-words message (the server's `Status.message`). */
export class ClusterError extends Error {
  readonly reason: ClusterErrorReason;
  readonly status: number | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(reason: ClusterErrorReason, message: string, options: ClusterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClusterError';
    this.reason = reason;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** True when `error` is a {@link ClusterError} of the given reason. */
export function isClusterError(error: unknown, reason?: ClusterErrorReason): error is ClusterError {
  return error instanceof ClusterError && (reason === undefined || error.reason === reason);
}
