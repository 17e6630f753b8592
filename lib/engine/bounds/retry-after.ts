/**
 * What a 429 Too Many Requests means for the request it answered: wait as the server's
 * `Retry-After` says and send it again, when the wait fits what the request has left; otherwise
 * leave it to the next pass, no earlier than the server asked. An API server answers 429 when its
 * priority and fairness queues for the caller's flow are full (or its max-in-flight limit is
 * reached): pressing on makes the queue longer for everyone in the same priority level, waiting
 * as told lets it drain. Pure: the time, the deadline and the attempt come in as values.
 */
import type { ClusterRole, RequestDeadline } from '../../ports/index.js';

/**
 * The longest wait a pass without a deadline makes for one request (`tenantplane sync` without
 * `--deadline`): an API server asks for about a second (APF's rejections) and at most a minute
 * in practice; a longer ask is left to the next pass rather than holding the lease that long.
 */
export const MAX_RETRY_WAIT_MS = 60_000;

/**
 * Room kept after a wait for the request sent again: a wait that ends closer to the deadline than
 * this would send a request that cannot be answered in time anyway.
 */
export const RETRY_ROOM_MS = 1_000;

/** Times one request is sent again after a 429 before it is left to the next pass. */
export const MAX_RETRY_WAITS = 5;

/** What to do with a request answered 429. */
export type RetryVerdict =
  | { wait: true; waitMs: number }
  | { wait: false; why?: string; notBeforeMs?: number };

/** What {@link retryVerdict} looks at. */
export interface ThrottledAnswer {
  /** The server's `Retry-After`, in seconds (undefined: it gave none). */
  retryAfterSeconds: number | undefined;
  /** Now, epoch milliseconds. */
  nowMs: number;
  /** The bound of the request (the pass deadline, or the reporting reserve); none without one. */
  deadline: RequestDeadline | undefined;
  /** Waits this request already made (0 on its first 429). */
  waits: number;
}

/** `the host apiserver asked to retry after 3 s (429 Too Many Requests)`. */
export function askedText(side: ClusterRole, seconds: number | undefined): string {
  const who = `the ${side} apiserver`;
  return seconds === undefined
    ? `${who} answered 429 Too Many Requests without a Retry-After`
    : `${who} asked to retry after ${seconds} s (429 Too Many Requests)`;
}

/**
 * Whether to wait `Retry-After` and send the request again: yes when the server said when, the
 * request has waited fewer than {@link MAX_RETRY_WAITS} times, and the wait plus
 * {@link RETRY_ROOM_MS} ends before the request's deadline (without one, when the wait is at
 * most {@link MAX_RETRY_WAIT_MS}). Otherwise `why` says, after {@link askedText}, why it is not
 * sent again (nothing when the server did not say when), and `notBeforeMs` is when the server
 * would take it (when it said).
 */
export function retryVerdict(answer: ThrottledAnswer): RetryVerdict {
  const { retryAfterSeconds, nowMs, deadline, waits } = answer;
  if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds)) {
    return { wait: false };
  }
  const waitMs = Math.max(0, retryAfterSeconds) * 1000;
  const notBeforeMs = nowMs + waitMs;
  if (waits >= MAX_RETRY_WAITS) {
    return { wait: false, why: `for the ${ordinal(waits + 1)} time`, notBeforeMs };
  }
  if (deadline === undefined) {
    if (waitMs <= MAX_RETRY_WAIT_MS) return { wait: true, waitMs };
    const most = MAX_RETRY_WAIT_MS / 1000;
    return { wait: false, why: `longer than a pass waits (${most} s)`, notBeforeMs };
  }
  if (notBeforeMs + RETRY_ROOM_MS <= deadline.atMs) return { wait: true, waitMs };
  const left = Math.max(0, Math.floor((deadline.atMs - nowMs) / 1000));
  return {
    wait: false,
    why: `longer than the ${left} s left before ${deadline.what}`,
    notBeforeMs,
  };
}

/** `2nd`, `3rd`, `6th`: how many times a request was answered 429. */
function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

/**
 * What a Decision says of the waits its request made: `the host apiserver asked to retry after
 * 3 s (429 Too Many Requests); sent again after waiting as asked` (each ask when there were more).
 */
export function waitedText(side: ClusterRole, asks: readonly number[]): string {
  const after = asks.map((s) => `${s} s`).join(', then ');
  return `the ${side} apiserver asked to retry after ${after} (429 Too Many Requests); sent again after waiting as asked`;
}
