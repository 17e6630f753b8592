/**
 * What an operator reads of a follow: `tenantplane status` (`followText` of `status.follow`) and
 * the closing line of `tenantplane sync --follow` (`followSummary`).
 */
import { describe, expect, it } from '@jest/globals';
import { followSummary } from '../../../lib/cli/commands/follow.js';
import { followText } from '../../../lib/cli/commands/status.js';
import { FollowEnd } from '../../../lib/engine/index.js';

describe('followText', () => {
  const cases = [
    {
      name: 'an active follow: who, since when, what it did',
      follow: {
        active: true,
        holder: 'tenantplane pass follow-1 (laptop, pid 7)',
        since: '2026-12-05T02:00:00.000Z',
        passes: 12,
        changes: 30,
        latencyP50Ms: 80,
        latencyP99Ms: 450,
      },
      expected:
        'yes, by tenantplane pass follow-1 (laptop, pid 7) since 2026-12-05T02:00:00.000Z (12 passes, 30 changes, latency p50 80 ms, p99 450 ms)',
    },
    {
      name: 'an ended follow: when and why, no latency when nothing changed',
      follow: {
        active: false,
        since: '2026-12-05T02:00:00.000Z',
        endedAt: '2026-12-05T02:05:00.000Z',
        endReason: 'quiet',
        passes: 1,
        changes: 0,
      },
      expected:
        'no; the last follow ran from 2026-12-05T02:00:00.000Z to 2026-12-05T02:05:00.000Z, ended: quiet (1 passes, 0 changes)',
    },
  ];
  it.each(cases)('$name', ({ follow, expected }) => {
    expect(followText(follow)).toBe(expected);
  });
});

describe('followSummary', () => {
  const base = {
    tenant: 'dev',
    holder: 'h',
    startedAt: '2026-12-05T02:00:00.000Z',
    endedAt: '2026-12-05T02:01:00.000Z',
    passes: 3,
    changes: 4,
    failures: [],
    gaps: 0,
    resumedWatches: { fromFollow: 0, fromApiserver: 0 },
  };
  it('says how the follow ended, what it did and its latency', () => {
    const text = followSummary({
      ...base,
      endReason: FollowEnd.Signal,
      latency: { p50Ms: 40, p99Ms: 90, maxMs: 95 },
    });
    expect(text).toBe(
      'Followed tenant cluster "dev" from 2026-12-05T02:00:00.000Z to 2026-12-05T02:01:00.000Z (ended: signal): 3 passes, 4 changes, latency p50 40 ms, p99 90 ms.',
    );
  });
  it('names the holder when another process follows the tenant', () => {
    const heldBy = {
      lease: 'h-dev/tenantplane-dev',
      holder: 'other',
      since: 'then',
      expires: 'later',
    };
    const text = followSummary({
      ...base,
      passes: 0,
      changes: 0,
      endReason: FollowEnd.Held,
      heldBy,
    });
    expect(text).toBe(
      'Tenant cluster "dev" is followed by other since then (lease h-dev/tenantplane-dev): this follow wrote nothing.',
    );
  });
});
