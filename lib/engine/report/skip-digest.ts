/**
 * A converged tenant writes nothing, even with a persistent Skip: a name held by a foreign object
 * yields the same Skip on every pass. The recorded `status.lastPass` keeps a digest of its pass's
 * Skips, so a pass whose only Decisions are those same Skips need not rewrite it (the Skip's Event
 * is still bumped: that is how `kubectl describe` shows the Skip is current).
 */
import { createHash } from 'node:crypto';
import { stableJson } from '../../common/index.js';
import type { Decision } from '../../ports/index.js';

/** Digest of the Skip Decisions of a pass (what, where, why); `null` when there are none. */
export function skipDigest(decisions: readonly Decision[]): string | null {
  const skips = decisions
    .filter((d) => d.action === 'Skip')
    .map((d) => stableJson([d.apiVersion, d.kind, d.tenantRef, d.hostRef, d.reason]))
    .sort();
  if (skips.length === 0) return null;
  return createHash('sha256').update(skips.join('\n'), 'utf8').digest('hex').slice(0, 16);
}

/**
 * Whether a pass acted, for the status report: any Decision carried out, failed or found gone,
 * except Skips that repeat exactly the Skips of the recorded pass (`skipDigest` equal).
 */
export function actedBeyondRecordedSkips(
  previous: Record<string, unknown>,
  next: Record<string, unknown>,
): boolean {
  const counts = (next.counts ?? {}) as Record<string, unknown>;
  const sameSkips = typeof next.skipDigest === 'string' && previous.skipDigest === next.skipDigest;
  const acted = Object.entries(counts).some(
    ([action, n]) => typeof n === 'number' && n > 0 && !(action === 'skip' && sameSkips),
  );
  return acted || (typeof next.failedCount === 'number' && next.failedCount > 0);
}
