/**
 * The tenants' sync functions of `local:serverless`, invoked as Lambda invokes an asynchronous
 * event: one invocation of a tenant at a time (the deployed function's reserved concurrency is 1),
 * an event arriving while one runs waits for it (events waiting together are merged into one, and
 * one older than the function's maximum event age is dropped, as Lambda drops it), and every
 * invocation is a cold start: a fresh Node process (`invoke.ts`), gone once the handler settles.
 * Each invocation ends in one JSON line (`InvocationLine`).
 */
import { randomUUID } from 'node:crypto';
import {
  type InvocationOutcome,
  invokeFunction,
  type LocalFunction,
  type RunningInvocation,
} from './invoke.js';

/** Why a function was invoked. */
export type InvocationReason = 'wake' | 'schedule';

/** What one invocation did: the JSON line `local:serverless` prints for it. */
export interface InvocationLine {
  tenant: string;
  reason: InvocationReason;
  /** Always true: every invocation starts a fresh process (no warm container is kept). */
  cold: boolean;
  durationMs: number;
  /** The invocation's passes: its first pass, and its follow's. */
  passes: number;
  /** What it converged: the first pass's writes and the changes its follow saw. */
  changes: number;
  requestId: string;
  /** Set when the invocation failed (the function's error, or how its process ended). */
  error?: string;
  /** Why it did not follow after its pass, when it did not. */
  notFollowed?: string;
}

/** The Lambda default the deployed function of a followed tenant keeps (`maxEventAge`). */
export const MAX_EVENT_AGE_MS = 60_000;

interface Counts {
  Create?: number;
  Update?: number;
  Delete?: number;
}
interface Follow {
  followed?: boolean;
  passes?: number;
  changes?: number;
  reason?: string;
}

/** The line of an invocation from its outcome (the handler's `SyncResult`, or its failure). */
export function invocationLine(
  base: Pick<InvocationLine, 'tenant' | 'reason' | 'requestId' | 'durationMs'>,
  outcome: InvocationOutcome,
): InvocationLine {
  const result = (outcome.result ?? {}) as { counts?: Counts; follow?: Follow };
  const counts = result.counts ?? {};
  const follow = result.follow ?? {};
  const writes = (counts.Create ?? 0) + (counts.Update ?? 0) + (counts.Delete ?? 0);
  const line: InvocationLine = {
    ...base,
    cold: true,
    passes: outcome.result === undefined ? 0 : 1 + (follow.followed ? (follow.passes ?? 0) : 0),
    changes: writes + (follow.followed ? (follow.changes ?? 0) : 0),
  };
  if (outcome.error) line.error = `${outcome.error.name}: ${outcome.error.message}`;
  else if (outcome.exit)
    line.error = outcome.exit.timedOut
      ? 'the invocation timed out'
      : `the process ended without a result (${outcome.exit.signal ?? `exit ${outcome.exit.code}`})`;
  if (follow.followed === false && follow.reason) line.notFollowed = follow.reason;
  return line;
}

/** One tenant's function: its invocations, one at a time. */
export class TenantFunction {
  private running: RunningInvocation | undefined;
  private waiting: { reason: InvocationReason; since: number } | undefined;
  private stopped = false;

  constructor(
    readonly tenant: string,
    private readonly fn: LocalFunction,
    private readonly emit: (line: InvocationLine) => void,
    private readonly log: (chunk: Buffer) => void,
  ) {}

  /** Whether an invocation runs now. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** The running invocation's process id, if one runs. */
  get pid(): number | undefined {
    return this.running?.pid;
  }

  /** Sends an event: runs it now, or after the running invocation (see the module doc). */
  invoke(reason: InvocationReason): void {
    if (this.stopped) return;
    if (this.running) {
      // A wake waiting behind a schedule tick (or the reverse) is one more look at the tenant.
      this.waiting ??= { reason, since: Date.now() };
      return;
    }
    this.start(reason);
  }

  private start(reason: InvocationReason): void {
    const requestId = randomUUID();
    const event = reason === 'wake' ? { tenant: this.tenant, wake: true } : { tenant: this.tenant };
    const started = Date.now();
    const running = invokeFunction(this.fn, event, requestId, this.log);
    this.running = running;
    void running.done.then((outcome) => {
      this.running = undefined;
      const durationMs = Date.now() - started;
      this.emit(invocationLine({ tenant: this.tenant, reason, requestId, durationMs }, outcome));
      const next = this.waiting;
      this.waiting = undefined;
      if (next && !this.stopped && Date.now() - next.since < MAX_EVENT_AGE_MS) {
        this.start(next.reason);
      }
    });
  }

  /** Ends the running invocation, if any, and takes no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting = undefined;
    await this.running?.stop();
  }
}
