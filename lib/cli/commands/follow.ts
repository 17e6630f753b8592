/**
 * `tenantplane sync <tenant> --follow`: the engine as a long-lived process for one tenant. Runs
 * passes as changes arrive (`runFollow`) until SIGINT or SIGTERM, `--quiet-seconds` without a
 * change, or `--deadline`; prints each pass's Decisions as it ends (`-o json`: the same records as
 * a pass, one a line). On a signal it finishes the pass in hand, records `status.follow` and
 * exits 0.
 */
import { KubernetesEventsSink } from '../../adapters/events/index.js';
import { LogSink } from '../../adapters/log-sink.js';
import { FollowEnd, type FollowResult, runFollow } from '../../engine/index.js';
import type { DecisionSink, PassResult } from '../../ports/index.js';
import { withClusters } from '../clusters.js';
import { ExitCode } from '../exit-codes.js';
import { decisionTable, painter } from '../format.js';
import { type CliIo, colorsEnabled } from '../io.js';
import { budgetFromFlags, checkTenantName, type FollowFlags } from '../options.js';
import { recordWriter } from '../records.js';

/** The signals that end a follow, as the process gets them. */
export interface FollowSignals {
  signal: AbortSignal;
  /** Stops listening to the process's signals. */
  release(): void;
}

/** An abort signal for SIGINT and SIGTERM (the process keeps running until the follow ends). */
export function processSignals(): FollowSignals {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** One line about a follow's pass: when, what it converged, how long it took. */
function passLine(result: PassResult, changes: number): string {
  const at = new Date(Date.now()).toISOString().slice(11, 23);
  const what = changes === 1 ? '1 change' : `${changes} changes`;
  const done = result.complete ? 'complete' : `incomplete: ${result.incompleteReason ?? ''}`;
  return `${at} pass ${result.path ?? ''} (${what}) ${done} in ${result.durationMs} ms`;
}

/** The closing lines of a follow. */
export function followSummary(result: FollowResult): string {
  if (result.heldBy) {
    const { holder, since, lease } = result.heldBy;
    return `Tenant cluster "${result.tenant}" is followed by ${holder} since ${since} (lease ${lease}): this follow wrote nothing.`;
  }
  const latency = result.latency
    ? `, latency p50 ${result.latency.p50Ms} ms, p99 ${result.latency.p99Ms} ms`
    : '';
  const failures = result.failures.length > 0 ? `\nFailures: ${result.failures.join('; ')}` : '';
  return `Followed tenant cluster "${result.tenant}" from ${result.startedAt} to ${result.endedAt} (ended: ${result.endReason}): ${result.passes} passes, ${result.changes} changes${latency}.${failures}`;
}

/**
 * Follows `tenantArg` (see the module doc).
 * @returns Ok when the follow ended as asked (signal, quiet, deadline); Incomplete when another
 * process holds the tenant's lease and `--quiet-seconds` ran out waiting, or the lease was lost.
 */
export async function followCommand(
  tenantArg: string,
  flags: FollowFlags,
  io: CliIo,
  signals: FollowSignals = processSignals(),
): Promise<ExitCode> {
  const tenant = checkTenantName(tenantArg);
  try {
    return await withClusters(flags, io, async (clusters) => {
      const tenantApi = await clusters.tenant();
      const hostApi = await clusters.host();
      const sinks: DecisionSink[] = [new KubernetesEventsSink({ hostApi, tenant })];
      const table = flags.output === 'table';
      if (flags.output !== 'table') sinks.push(new LogSink(recordWriter(io, flags.output)));
      const paint = painter(colorsEnabled(io));
      const budget = budgetFromFlags(flags, Date.now());
      const untilMs = budget.deadline;
      delete budget.deadline; // the follow's end, not each pass's
      const result = await runFollow({
        tenant,
        tenantApi,
        hostApi,
        sinks,
        budget,
        signal: signals.signal,
        ...(untilMs === undefined ? {} : { untilMs }),
        ...(flags.quietSeconds === undefined ? {} : { quietSeconds: flags.quietSeconds }),
        onHeld: (error) => io.err(`${error.message}; waiting for it (Ctrl-C to stop).\n`),
        onPass: (pass, changes) => {
          if (!table || (pass.decisions.length === 0 && pass.errors.length === 0)) return;
          io.out(`${passLine(pass, changes)}\n`);
          if (pass.decisions.length > 0) io.out(`${decisionTable(pass.decisions, paint)}\n`);
          for (const e of pass.errors) io.out(paint('red', `  ${e.kind}: ${e.message}\n`));
        },
      });
      io.err(`${followSummary(result)}\n`);
      if (result.endReason === FollowEnd.Held || result.endReason === FollowEnd.LeaseLost) {
        return ExitCode.Incomplete;
      }
      return ExitCode.Ok;
    });
  } finally {
    signals.release();
  }
}
