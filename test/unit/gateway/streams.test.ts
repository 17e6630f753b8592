/** A stream's bounds: per-tenant limit, idle and total timeouts, everything held closed once. */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Streams } from '../../../lib/gateway/streams.js';

const limits = { idleTimeoutMs: 1000, totalTimeoutMs: 5000, maxStreamsPerTenant: 2 };

describe('Streams', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('holds at most the limit per tenant and gives the slot back at the end', () => {
    const streams = new Streams(limits, () => {});
    const a = streams.open('dev', {});
    expect(streams.open('dev', {})).toBeDefined();
    expect(streams.open('dev', {})).toBeUndefined();
    expect(streams.open('prod', {})).toBeDefined();
    a?.end('done');
    expect(streams.open('dev', {})).toBeDefined();
    expect(streams.counts.started).toBe(4);
  });

  it('a stalled stream ends at the idle timeout, closing both sides once', () => {
    const log: Record<string, unknown>[] = [];
    const streams = new Streams(limits, (e) => log.push(e));
    const stream = streams.open('dev', { action: 'logs' });
    const down = { destroy: jest.fn() };
    const up = { destroy: jest.fn() };
    stream?.hold(down);
    stream?.hold(up);
    jest.advanceTimersByTime(900);
    stream?.touch();
    jest.advanceTimersByTime(900);
    expect(up.destroy).not.toHaveBeenCalled();
    jest.advanceTimersByTime(200);
    expect(down.destroy).toHaveBeenCalledTimes(1);
    expect(up.destroy).toHaveBeenCalledTimes(1);
    stream?.end('done');
    expect(up.destroy).toHaveBeenCalledTimes(1);
    expect(streams.openNow()).toBe(0);
    expect(log).toEqual([
      {
        msg: 'stream ended',
        tenant: 'dev',
        action: 'logs',
        reason: 'idle',
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('a busy stream ends at the total timeout', () => {
    const streams = new Streams(limits, () => {});
    const stream = streams.open('dev', {});
    for (let i = 0; i < 10; i += 1) {
      jest.advanceTimersByTime(600);
      stream?.touch();
    }
    expect(stream?.isEnded).toBe(true);
    expect(streams.counts.ended).toEqual({ total: 1 });
  });

  it('a shutdown ends every open stream once, and closes what each holds', () => {
    const streams = new Streams(limits, () => {});
    const held = [{ destroy: jest.fn() }, { destroy: jest.fn() }];
    const open = held.map((h, i) => {
      const stream = streams.open(i === 0 ? 'dev' : 'prod', {});
      stream?.hold(h);
      return stream;
    });
    open[1]?.end('done');
    streams.endAll('shutdown');
    streams.endAll('shutdown');
    expect(held.map((h) => h.destroy.mock.calls.length)).toEqual([1, 1]);
    expect(streams.openNow()).toBe(0);
    expect(streams.counts.ended).toEqual({ done: 1, shutdown: 1 });
  });
});
