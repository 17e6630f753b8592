/**
 * What the fleet bench reads from the host apiserver's own `/metrics` (Prometheus text format):
 * the request latency histogram by verb, the request counter by code, and priority and
 * fairness's rejections. A window's figures are the difference of two scrapes, so what the
 * apiserver served before the window (its start, the seeding) does not count. Pure functions, unit
 * tested (test/unit/bench/fleet-metrics.test.ts).
 */

/** One sample line: metric name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of `text` whose metric name is one of `names` (comments and others skipped). */
export function parseSamples(text: string, names: ReadonlySet<string>): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m || !names.has(m[1] as string)) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = l[2] as string;
    const value = Number(m[3]);
    if (Number.isFinite(value) || m[3] === '+Inf')
      samples.push({ name: m[1] as string, labels, value });
  }
  return samples;
}

/** Cumulative bucket counts by upper bound (`le`, `+Inf` as Infinity), summed over series. */
export type Histogram = Map<number, number>;

const DURATION = 'apiserver_request_duration_seconds_bucket';
const REQUESTS = 'apiserver_request_total';
const REJECTED = 'apiserver_flowcontrol_rejected_requests_total';

/** What one scrape of the host holds that the bench reports. */
export interface HostScrape {
  /** Latency histogram per verb (WATCH and CONNECT left out: they last as long as they stream). */
  byVerb: Map<string, Histogram>;
  /** Requests served, every verb and code. */
  requests: number;
  /** Requests answered 429. */
  code429: number;
  /** Requests priority and fairness rejected (queue full, timed out in queue, ...). */
  rejected: number;
}

const LONG_RUNNING = new Set(['WATCH', 'WATCHLIST', 'CONNECT']);

/** Reads a `/metrics` text into a {@link HostScrape}. */
export function readScrape(text: string): HostScrape {
  const scrape: HostScrape = { byVerb: new Map(), requests: 0, code429: 0, rejected: 0 };
  for (const s of parseSamples(text, new Set([DURATION, REQUESTS, REJECTED]))) {
    if (s.name === REQUESTS) {
      scrape.requests += s.value;
      if (s.labels.code === '429') scrape.code429 += s.value;
    } else if (s.name === REJECTED) {
      scrape.rejected += s.value;
    } else {
      const verb = s.labels.verb ?? '';
      if (LONG_RUNNING.has(verb)) continue;
      const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le);
      const h = scrape.byVerb.get(verb) ?? new Map<number, number>();
      h.set(le, (h.get(le) ?? 0) + s.value);
      scrape.byVerb.set(verb, h);
    }
  }
  return scrape;
}

/** `after - before`, bucket by bucket (a histogram absent before counts as empty). */
export function diffHistogram(after: Histogram, before: Histogram | undefined): Histogram {
  const out: Histogram = new Map();
  for (const [le, n] of after) out.set(le, n - (before?.get(le) ?? 0));
  return out;
}

/** The window between two scrapes. */
export function diffScrape(after: HostScrape, before: HostScrape): HostScrape {
  const byVerb = new Map<string, Histogram>();
  for (const [verb, h] of after.byVerb) byVerb.set(verb, diffHistogram(h, before.byVerb.get(verb)));
  return {
    byVerb,
    requests: after.requests - before.requests,
    code429: after.code429 - before.code429,
    rejected: after.rejected - before.rejected,
  };
}

/** Sum of histograms (every verb's together). */
export function mergeHistograms(histograms: Iterable<Histogram>): Histogram {
  const out: Histogram = new Map();
  for (const h of histograms) for (const [le, n] of h) out.set(le, (out.get(le) ?? 0) + n);
  return out;
}

/** Observations in a cumulative histogram (its `+Inf` bucket, else its largest). */
export function histogramCount(h: Histogram): number {
  const bounds = [...h.keys()].sort((a, b) => a - b);
  return bounds.length === 0 ? 0 : (h.get(bounds.at(-1) as number) ?? 0);
}

/**
 * The q-quantile (0..1) of a cumulative histogram in seconds, as Prometheus's
 * `histogram_quantile` estimates it: linear within the bucket it falls in, the largest finite
 * bound when it falls in `+Inf`. Undefined for an empty histogram.
 */
export function histogramQuantile(q: number, h: Histogram): number | undefined {
  const bounds = [...h.keys()].sort((a, b) => a - b);
  const total = histogramCount(h);
  if (total <= 0) return undefined;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const le of bounds) {
    const count = h.get(le) ?? 0;
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lowerBound;
      const inBucket = count - lowerCount;
      return inBucket <= 0 ? le : lowerBound + (le - lowerBound) * ((rank - lowerCount) / inBucket);
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}

/** The q-quantile (0..1) of plain values, nearest rank; undefined for none. */
export function quantile(q: number, values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

/** The sum of several apiservers' scrapes (or of their differences), as one. */
export function sumScrapes(scrapes: readonly HostScrape[]): HostScrape {
  const byVerb = new Map<string, Histogram>();
  for (const s of scrapes)
    for (const [verb, h] of s.byVerb)
      byVerb.set(verb, mergeHistograms([byVerb.get(verb) ?? new Map(), h]));
  return {
    byVerb,
    requests: scrapes.reduce((a, s) => a + s.requests, 0),
    code429: scrapes.reduce((a, s) => a + s.code429, 0),
    rejected: scrapes.reduce((a, s) => a + s.rejected, 0),
  };
}
