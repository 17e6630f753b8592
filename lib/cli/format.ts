/**
 * Plain-text output: aligned tables (kubectl style), the pass summary, colors on a terminal only,
 * and the progress line on stderr.
 */
import { plural } from '../common/index.js';
import type { Decision, ObjectError, PassResult } from '../ports/index.js';
import { formatDuration } from './duration.js';
import type { OutputFormat } from './output-format.js';
import { recordText } from './records.js';

// The `-o` formats live in output-format.ts (parsing the command line loads no renderer).
export { type OutputFormat, OutputFormats } from './output-format.js';

export type Color = 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold';
/** Colors text, or leaves it plain; see {@link painter}. */
export type Paint = (color: Color, text: string) => string;
const SGR: Record<Color, [number, number]> = {
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  dim: [2, 22],
  bold: [1, 22],
};

/** Paints text, or leaves it plain: `paint(enabled)('red', 'x')`. */
export function painter(enabled: boolean): Paint {
  return (color, text) => {
    if (!enabled || text === '') return text;
    const [on, off] = SGR[color];
    return `\u001b[${on}m${text}\u001b[${off}m`;
  };
}

/** Removes ANSI color sequences (for width computations and tests). */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * Lays out rows as columns separated by at least `gap` spaces, like `kubectl get`; the last column
 * is not padded. Width ignores color sequences.
 */
export function formatTable(rows: readonly (readonly string[])[], gap = 3): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, stripAnsi(cell).length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1
            ? cell
            : cell + ' '.repeat((widths[i] ?? 0) - stripAnsi(cell).length + gap),
        )
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

const ACTION_COLOR: Record<Decision['action'], Color> = {
  Create: 'green',
  Update: 'cyan',
  Delete: 'red',
  Skip: 'yellow',
};

/** One line per decision: action, kind, tenant object, host object, reason (and error). */
export function decisionTable(
  decisions: readonly Decision[],
  paint: Paint = painter(false),
): string {
  const rows: string[][] = [['ACTION', 'KIND', 'TENANT OBJECT', 'HOST OBJECT', 'REASON']];
  for (const d of decisions) {
    const reason = d.error ? `${d.reason} (failed: ${d.error})` : d.reason;
    rows.push([
      paint(ACTION_COLOR[d.action], d.action),
      d.kind,
      `${d.tenantRef.namespace}/${d.tenantRef.name}`,
      `${d.hostRef.namespace}/${d.hostRef.name}`,
      d.error ? paint('red', reason) : reason,
    ]);
  }
  return formatTable(rows);
}

/**
 * `3 Create, 1 Update, 0 Delete, 2 Skip`, then what did not happen, counted apart: `, 2 failed
 * (1 Create, 1 Update), 1 already gone` (left out when zero). A missing count reads 0, because
 * `status.lastPass` as stored on a TenantCluster may leave some out.
 */
export function countsText(
  counts: Partial<PassResult['counts']>,
  apart: { failed?: Partial<PassResult['counts']>; alreadyGone?: number } = {},
): string {
  const done = `${counts.Create ?? 0} Create, ${counts.Update ?? 0} Update, ${counts.Delete ?? 0} Delete, ${counts.Skip ?? 0} Skip`;
  const failed = (['Create', 'Update', 'Delete'] as const)
    .map((action) => [action, apart.failed?.[action] ?? 0] as const)
    .filter(([, n]) => n > 0);
  const total = failed.reduce((sum, [, n]) => sum + n, 0);
  const failedText =
    total > 0 ? `, ${total} failed (${failed.map(([a, n]) => `${n} ${a}`).join(', ')})` : '';
  const gone = apart.alreadyGone ? `, ${apart.alreadyGone} already gone` : '';
  return `${done}${failedText}${gone}`;
}

/** `tenant 2 reads / 0 writes, host 5 reads / 3 writes`. */
export function requestsText(requests: PassResult['requests']): string {
  const one = (r: { reads: number; writes: number }) =>
    `${plural(r.reads, 'read')} / ${plural(r.writes, 'write')}`;
  return `tenant ${one(requests.tenant)}, host ${one(requests.host)}`;
}

function objectErrorLine(error: ObjectError): string {
  const ref = error.tenantRef ?? error.hostRef;
  const where = ref ? `${error.kind} ${ref.namespace}/${ref.name}` : error.kind;
  return `${where}: ${error.message}${error.reason ? ` (${error.reason})` : ''}`;
}

/**
 * The summary after the table: outcome, counts, objects seen, requests, errors. `dryRun` passes
 * say what they would have done.
 */
export function passSummary(result: PassResult, paint: Paint = painter(false)): string {
  const lines: string[] = [];
  const what = result.dryRun ? 'Plan (dry run, nothing written)' : 'Pass';
  const outcome = result.complete
    ? paint('green', 'complete')
    : paint('yellow', `incomplete: ${result.incompleteReason ?? 'work is left for the next pass'}`);
  lines.push(
    `${what} ${result.passId} for tenant cluster "${result.tenant}" ${outcome} in ${formatDuration(result.durationMs)}.`,
  );
  if (result.note) lines.push(`Note: ${result.note}.`);
  if (result.path) {
    lines.push(`Path: ${result.path}${result.pathReason ? ` (${result.pathReason})` : ''}`);
  }
  const seen = Object.entries(result.objectsSeen)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  lines.push(
    `Decisions: ${countsText(result.counts, result)}${seen ? `   (tenant objects seen: ${seen})` : ''}`,
  );
  lines.push(`Requests: ${requestsText(result.requests)}`);
  const throttled = result.throttled;
  if (throttled) {
    const waited = `${throttled.retried} sent again after waiting ${formatDuration(throttled.waitedMs)} as asked`;
    const until = throttled.notBefore ? `; the server takes more after ${throttled.notBefore}` : '';
    lines.push(`Answered 429 Too Many Requests: ${waited}${until}`);
  }
  if (result.errors.length > 0) {
    lines.push(paint('red', `Errors (${result.errors.length}):`));
    for (const error of result.errors) lines.push(`  ${objectErrorLine(error)}`);
  }
  return lines.join('\n');
}

/** Output of a pass in table form: the decision table (or a line saying there are none) and the summary. */
export function passReport(result: PassResult, paint: Paint = painter(false)): string {
  const table =
    result.decisions.length > 0
      ? decisionTable(result.decisions, paint)
      : result.dryRun
        ? 'No decisions: the host already matches the tenant; a pass would write nothing.'
        : 'No decisions: the host already matched the tenant; nothing was written.';
  return `${table}\n\n${passSummary(result, paint)}\n`;
}

/**
 * A one-line progress display on a terminal: `ConfigMap: 1200 listed, 300 written`, rewritten in
 * place; `done()` clears it. Disabled, it writes nothing.
 */
export function progressLine(write: (text: string) => void, enabled: boolean) {
  let shown = false;
  return {
    update(progress: { kind: string; listed: number; written: number }, verb = 'written'): void {
      if (!enabled) return;
      shown = true;
      write(`\r\u001b[2K${progress.kind}: ${progress.listed} listed, ${progress.written} ${verb}`);
    },
    done(): void {
      if (enabled && shown) write('\r\u001b[2K');
      shown = false;
    },
  };
}

/**
 * Runs `work` with a {@link progressLine}, cleared however `work` ends: a stale line would be
 * mistaken for a pass still running, or mangle the error printed after it.
 */
export async function withProgressLine<T>(
  write: (text: string) => void,
  enabled: boolean,
  work: (progress: ReturnType<typeof progressLine>) => Promise<T>,
): Promise<T> {
  const progress = progressLine(write, enabled);
  try {
    return await work(progress);
  } finally {
    progress.done();
  }
}

/**
 * A command's answer for `-o`: with `json` the record on one line, so a script reads it with one
 * parse; with `yaml` the record as one YAML document; otherwise the text `layout` returns.
 */
export function answer(output: OutputFormat, record: unknown, layout: () => string): string {
  return output === 'table' ? layout() : recordText(output, record);
}
