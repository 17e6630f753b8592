/**
 * Where the time of one woken invocation goes (`npm run bench:wake`'s phase rows), read from what
 * the deployed shape logs anyway: the endpoint's `invoked` line, and in the function's own log
 * (`<state dir>/logs/serverless-<tenant>.log`) its `pass starting` line (the handler imported and
 * called), the pass's `startedAt` (the kubeconfigs read, the clients built) and the Decision of
 * the changed object (its host write made). All wall-clock times on one machine, in ms from the
 * tenant write's response.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spread } from './latency-watch.js';

/** The phases of one change from idle, each ms from the tenant write's response. */
export interface WakePhases {
  invoked?: number;
  handlerCalled?: number;
  passStarted?: number;
  decided?: number;
  seen: number;
}

type LogLine = Record<string, unknown> & { message?: string; timestamp?: string };

/** The function log of `tenant` from byte `from` on (the lines of the invocations since). */
export async function functionLog(stateDir: string, tenant: string, from = 0) {
  const text = await readFile(join(stateDir, 'logs', `serverless-${tenant}.log`)).catch(() =>
    Buffer.alloc(0),
  );
  const lines: LogLine[] = [];
  for (const line of text.subarray(from).toString('utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as LogLine);
    } catch {
      // a line cut by the read: not one of ours
    }
  }
  return { bytes: text.length, lines };
}

/** The phases of the woken invocation in `lines` that wrote `tenantName`'s copy. */
export function phasesOf(
  lines: readonly LogLine[],
  tenantName: string,
  wall0: number,
  invokedAt: number | undefined,
  seen: number,
): WakePhases {
  const at = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) - wall0 : undefined);
  const start = lines.find((l) => l.message === 'pass starting' && l.wake === true);
  const decision = lines.find(
    (l) => l.message === 'decision' && l.tenantName === tenantName && l.passId === start?.passId,
  );
  const finished = lines.find((l) => l.message === 'pass finished' && l.passId === start?.passId);
  return {
    ...(invokedAt === undefined ? {} : { invoked: invokedAt - wall0 }),
    ...(start ? { handlerCalled: at(start.timestamp) } : {}),
    ...(finished ? { passStarted: at(finished.startedAt) } : {}),
    ...(decision ? { decided: at(decision.timestamp) } : {}),
    seen,
  };
}

/** The table rows: each phase's share (p50 / p99 of the differences). */
export function phaseRows(all: readonly WakePhases[]): string[][] {
  const steps: Array<[string, keyof WakePhases | undefined, keyof WakePhases]> = [
    ['tenant write to the wake (the audit batch, the endpoint invoking)', undefined, 'invoked'],
    ['invoked to the handler called (process start, bundle import)', 'invoked', 'handlerCalled'],
    [
      'handler called to the pass started (kubeconfigs read, clients)',
      'handlerCalled',
      'passStarted',
    ],
    ['pass started to the copy written (lease, listing, write)', 'passStarted', 'decided'],
    ['copy written to the host watch seeing it', 'decided', 'seen'],
  ];
  return steps.map(([label, from, to]) => {
    const deltas = all
      .map((p) => (p[to] ?? Number.NaN) - (from === undefined ? 0 : (p[from] ?? Number.NaN)))
      .filter((d) => Number.isFinite(d));
    const s = spread(deltas);
    return [`  phase: ${label}`, `p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms (${s.n})`];
  });
}
