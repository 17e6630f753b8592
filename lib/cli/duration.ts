/**
 * Durations for `--deadline`, written as kubectl and Go write them: `30s`, `1m30s`, `500ms`,
 * `1.5h`.
 */
import { UsageError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/**
 * Parses a duration into milliseconds (rounded to whole milliseconds).
 * @throws UsageError for anything else, including a bare number and zero.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) {
    throw new UsageError(
      `invalid duration ${JSON.stringify(text)}: use a number with a unit (ms, s, m, h), e.g. 30s, 2m or 1m30s`,
    );
  }
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) {
    total += Number(amount) * (UNIT_MS[unit as string] as number);
  }
  const ms = Math.round(total);
  if (ms <= 0)
    throw new UsageError(`invalid duration ${JSON.stringify(text)}: must be more than 0`);
  return ms;
}

/** Parses a whole number of at least `min` (flags like `--max-writes`, `--page-size`). */
export function parseWholeNumber(text: string, flag: string, min: number): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) {
    throw new UsageError(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  }
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${flag} must be at least ${min}, got ${trimmed}`);
  }
  return value;
}

/** A duration for humans: `850 ms`, `2.4 s`, `3 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}
