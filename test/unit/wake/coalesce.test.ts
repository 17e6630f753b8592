import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { WakeCoalescer } from '../../../lib/wake/index.js';

const WINDOW = { quietMs: 30_000, maxInvocationMs: 300_000 };

/** The decisions for changes at the given times (ms after the first). */
function decisions(times: number[], slackMs = 2_000): string[] {
  const c = new WakeCoalescer(slackMs);
  return times.map((t) => {
    const d = c.change('dev', t, WINDOW);
    return d.invoke ? `invoke:${d.reason}` : 'coalesce';
  });
}

describe('WakeCoalescer', () => {
  const cases: Array<{ name: string; times: number[]; expected: string[] }> = [
    { name: 'the first change', times: [0], expected: ['invoke:first'] },
    {
      name: 'changes closer than the quiet time',
      times: [0, 1_000, 20_000, 47_000],
      expected: ['invoke:first', 'coalesce', 'coalesce', 'coalesce'],
    },
    {
      name: 'a change after the quiet time, less the delivery slack',
      times: [0, 28_000],
      expected: ['invoke:first', 'invoke:quiet'],
    },
    {
      name: 'just inside the quiet time less the slack',
      times: [0, 27_999],
      expected: ['invoke:first', 'coalesce'],
    },
    {
      name: 'a steady stream longer than the function timeout',
      times: Array.from({ length: 31 }, (_, i) => i * 10_000),
      expected: ['invoke:first', ...Array<string>(29).fill('coalesce'), 'invoke:expired'],
    },
  ];
  it.each(cases)('$name', ({ times, expected }) => {
    expect(decisions(times)).toEqual(expected);
  });

  it('forgets a failed invoke', () => {
    const c = new WakeCoalescer();
    expect(c.change('dev', 0, WINDOW).invoke).toBe(true);
    c.invokeFailed('dev');
    expect(c.change('dev', 10, WINDOW)).toEqual({ invoke: true, reason: 'first' });
  });

  it('property: a burst with gaps under the quiet time invokes once per function timeout', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 27_999 }), { maxLength: 500 }), (gaps) => {
        let t = 0;
        const times = [0, ...gaps.map((g) => (t += g))];
        const invokes = decisions(times).filter((d) => d.startsWith('invoke')).length;
        expect(invokes).toBeLessThanOrEqual(1 + Math.floor(t / WINDOW.maxInvocationMs));
      }),
    );
  });

  it('property: a change after a quiet gap always invokes (no wake is lost to coalescing)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60_000 }), { minLength: 1, maxLength: 50 }),
        (gaps) => {
          let t = 0;
          const times = [0, ...gaps.map((g) => (t += g))];
          const out = decisions(times);
          gaps.forEach((gap, i) => {
            if (gap >= WINDOW.quietMs) expect(out[i + 1]).toMatch(/^invoke/);
          });
        },
      ),
    );
  });
});
