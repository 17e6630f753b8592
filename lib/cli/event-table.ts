/**
 * Events as the CLI prints them, kubectl style. It borrows the CLI's table layout, so that
 * `status`, `explain` and the other tables line up the same way.
 */
import type { EventView } from '../adapters/events/index.js';
import { formatTable } from './format.js';

/** `2m ago` style age of an ISO time relative to `now`; `<unknown>` for an unreadable time. */
export function age(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '<unknown>';
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** Events as a table: LAST SEEN, TYPE, REASON, COUNT, MESSAGE. */
export function eventTable(events: readonly EventView[], now: number): string {
  const rows = [['LAST SEEN', 'TYPE', 'REASON', 'COUNT', 'MESSAGE']];
  for (const e of events)
    rows.push([age(e.lastSeen, now), e.type, e.reason, String(e.count), e.message]);
  return formatTable(rows);
}
