/**
 * Deadlines that hold: every cluster request of a pass is bounded. Requests of the work (listing,
 * applying, garbage-collecting a kind) end by the pass deadline; what follows the work (status,
 * Events, releasing the lease) has a reserve of its own after it. So a pass given `--deadline 10s`
 * ends within the deadline plus the reserve even when a server accepts requests and never
 * answers, and says which server stalled.
 */
import { type ClusterRole, isClusterError, type RequestDeadline } from '../../ports/index.js';
import type { Budget } from './budget.js';

/** Default time after the pass deadline for the status, the Events and the lease release. */
export const DEFAULT_REPORT_RESERVE_MS = 2_000;

/** The bound of the work's requests: the pass deadline (none without one). */
export function workDeadline(budget: Pick<Budget, 'deadline'>): RequestDeadline | undefined {
  return budget.deadline === undefined
    ? undefined
    : { atMs: budget.deadline, what: 'the pass deadline' };
}

/** The bound of every request of the pass: the deadline plus the reporting reserve. */
export function passEndDeadline(
  budget: Pick<Budget, 'deadline' | 'reportReserveMs'>,
): RequestDeadline | undefined {
  if (budget.deadline === undefined) return undefined;
  const reserve = Math.max(0, budget.reportReserveMs ?? DEFAULT_REPORT_RESERVE_MS);
  return { atMs: budget.deadline + reserve, what: 'the reporting reserve after the pass deadline' };
}

/** `the <side> cluster stalled: ...` when `error` is a request that got no answer in time. */
export function stallNote(side: ClusterRole, error: unknown): string | undefined {
  if (!isClusterError(error, 'Transport') || !error.timedOut) return undefined;
  return `the ${side} cluster stalled (${error.message})`;
}
