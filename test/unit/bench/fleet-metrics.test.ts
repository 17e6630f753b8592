/**
 * The fleet bench's reading of the host apiserver's `/metrics`: what it sums, what it leaves out
 * (watches), how two scrapes make a window, and the quantiles of a bucketed histogram.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { cpuBusy } from '../../bench/fleet-cpu.js';
import {
  diffScrape,
  histogramCount,
  histogramQuantile,
  mergeHistograms,
  parseSamples,
  quantile,
  readScrape,
  sumScrapes,
} from '../../bench/fleet-metrics.js';

const bucket = (verb: string, resource: string, le: string, n: number) =>
  `apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="${resource}",scope="namespace",subresource="",verb="${verb}",version="v1",le="${le}"} ${n}`;

function scrapeText(getCounts: number[], watchCounts: number[], extra: string[] = []): string {
  const les = ['0.005', '0.025', '0.1', '1', '+Inf'];
  return [
    '# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution',
    '# TYPE apiserver_request_duration_seconds histogram',
    ...les.map((le, i) => bucket('GET', 'configmaps', le, getCounts[i] ?? 0)),
    ...les.map((le, i) => bucket('WATCH', 'configmaps', le, watchCounts[i] ?? 0)),
    'apiserver_request_duration_seconds_sum{verb="GET"} 1.5',
    ...extra,
  ].join('\n');
}

describe('fleet bench /metrics reading', () => {
  it('parses labels with escaped quotes and skips comments and other metrics', () => {
    const text = [
      '# TYPE x counter',
      'other_metric{a="1"} 3',
      'apiserver_request_total{code="429",verb="POST",resource="config\\"maps"} 7',
    ].join('\n');
    expect(parseSamples(text, new Set(['apiserver_request_total']))).toEqual([
      {
        name: 'apiserver_request_total',
        labels: { code: '429', verb: 'POST', resource: 'config\\"maps' },
        value: 7,
      },
    ]);
  });

  it('sums requests and 429s over series, rejections over flow schemas, and leaves WATCH out', () => {
    const scrape = readScrape(
      scrapeText(
        [1, 2, 3, 4, 4],
        [0, 0, 0, 0, 9],
        [
          'apiserver_request_total{code="200",verb="GET"} 10',
          'apiserver_request_total{code="429",verb="POST"} 2',
          'apiserver_request_total{code="429",verb="GET"} 1',
          'apiserver_flowcontrol_rejected_requests_total{flow_schema="global-default",priority_level="global-default",reason="queue-full"} 5',
          'apiserver_flowcontrol_rejected_requests_total{flow_schema="tenantplane-sync-a",priority_level="tenantplane",reason="time-out"} 1',
        ],
      ),
    );
    expect(scrape.requests).toBe(13);
    expect(scrape.code429).toBe(3);
    expect(scrape.rejected).toBe(6);
    expect([...scrape.byVerb.keys()]).toEqual(['GET']);
    expect(histogramCount(scrape.byVerb.get('GET') ?? new Map())).toBe(4);
  });

  it('makes a window of two scrapes, bucket by bucket', () => {
    const before = readScrape(scrapeText([1, 1, 1, 1, 1], []));
    const after = readScrape(scrapeText([1, 11, 21, 21, 21], []));
    const window = diffScrape(after, before);
    const get = window.byVerb.get('GET') ?? new Map();
    expect(histogramCount(get)).toBe(20);
    // 10 of the 20 in (0.005, 0.025], 10 in (0.025, 0.1].
    expect(histogramQuantile(0.5, get)).toBeCloseTo(0.025, 6);
    expect(histogramQuantile(0.25, get)).toBeCloseTo(0.015, 6);
    expect(histogramQuantile(0.99, get)).toBeCloseTo(0.025 + 0.075 * 0.98, 6);
  });

  it('answers the largest finite bound for a quantile in +Inf, nothing for an empty histogram', () => {
    const h = new Map([
      [0.1, 1],
      [1, 1],
      [Number.POSITIVE_INFINITY, 10],
    ]);
    expect(histogramQuantile(0.99, h)).toBe(1);
    expect(histogramQuantile(0.5, new Map())).toBeUndefined();
    expect(histogramQuantile(0.5, new Map([[1, 0]]))).toBeUndefined();
  });

  it('merges histograms of several verbs', () => {
    const merged = mergeHistograms([
      new Map([
        [0.1, 1],
        [Number.POSITIVE_INFINITY, 2],
      ]),
      new Map([[Number.POSITIVE_INFINITY, 3]]),
    ]);
    expect(merged.get(Number.POSITIVE_INFINITY)).toBe(5);
    expect(merged.get(0.1)).toBe(1);
  });

  it('takes nearest-rank quantiles of plain values', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(0.5, values)).toBe(50);
    expect(quantile(0.99, values)).toBe(99);
    expect(quantile(1, values)).toBe(100);
    expect(quantile(0.5, [])).toBeUndefined();
  });

  it('sums the windows of several apiservers verb by verb, counters too', () => {
    const one = diffScrape(
      readScrape(scrapeText([2, 3, 3, 3, 3], [0, 0, 0, 0, 1])),
      readScrape(scrapeText([0, 0, 0, 0, 0], [0, 0, 0, 0, 0])),
    );
    const two = readScrape(
      scrapeText([0, 1, 4, 4, 4], [], ['apiserver_request_total{code="429",verb="GET"} 2']),
    );
    const sum = sumScrapes([one, two]);
    expect([...sum.byVerb.keys()]).toEqual(['GET']);
    expect(histogramCount(sum.byVerb.get('GET') ?? new Map())).toBe(7);
    expect(sum.byVerb.get('GET')?.get(0.005)).toBe(2);
    expect(sum.code429).toBe(one.code429 + 2);
    expect(sum.requests).toBe(one.requests + two.requests);
    expect(sumScrapes([]).requests).toBe(0);
  });
});

describe('fleet bench CPU share', () => {
  it('divides the CPU seconds used by the wall seconds and the cores', () => {
    const busy = cpuBusy(
      { atMs: 0, planeSeconds: 10, benchSeconds: 1 },
      { atMs: 10_000, planeSeconds: 10 + 10 * availableParallelism(), benchSeconds: 1 + 2.5 },
    );
    expect(busy.plane).toBe(1);
    expect(busy.bench).toBe(Math.round((0.25 / availableParallelism()) * 100) / 100);
    expect(busy.cores).toBe(availableParallelism());
  });
});
