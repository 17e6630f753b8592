/**
 * Request deadlines: how the engine bounds every cluster request of a pass without threading a
 * signal through each call. The engine runs a phase of the pass inside {@link withRequestDeadline};
 * the cluster adapter reads {@link currentRequestDeadline} when it sends a request and gives it a
 * timeout of min(its own per-request timeout, time left), and sends nothing once the deadline has
 * passed. Scopes nest and never extend an outer deadline.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A point in time after which no request of the scope may still be waiting. */
export interface RequestDeadline {
  /** Epoch milliseconds. */
  atMs: number;
  /** What the deadline is, for messages: `the pass deadline`, `the reporting reserve`. */
  what: string;
}

const scope = new AsyncLocalStorage<RequestDeadline>();

/**
 * Runs `work` with every cluster request it makes (directly or in anything it starts) bounded by
 * `deadline`; `undefined` adds no bound. An enclosing earlier deadline still applies.
 */
export function withRequestDeadline<T>(
  deadline: RequestDeadline | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (deadline === undefined || !Number.isFinite(deadline.atMs)) return work();
  const outer = scope.getStore();
  return scope.run(outer && outer.atMs <= deadline.atMs ? outer : deadline, work);
}

/** The deadline bounding requests made here, if any. */
export function currentRequestDeadline(): RequestDeadline | undefined {
  return scope.getStore();
}
