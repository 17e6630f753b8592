/**
 * Byte-aware page sizes: a page's `limit` keeps it near PAGE_BYTES whatever the object sizes,
 * on both sides of a pass.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import {
  approxBytes,
  LARGEST_OBJECT_BYTES,
  PAGE_BYTES,
  PageSizer,
} from '../../../../lib/engine/listing/page-bytes.js';
import { CONFIGMAP, clusters, cm, hostCopyOf, TENANT } from '../support.js';

const MIB = 1024 * 1024;

describe('approxBytes', () => {
  it('is close to the JSON length of an object', () => {
    const object = cm('default', 'app', { payload: 'x'.repeat(10_000), n: '1' });
    const json = JSON.stringify(object).length;
    expect(approxBytes(object)).toBeGreaterThanOrEqual(json * 0.9);
    expect(approxBytes(object)).toBeLessThanOrEqual(json * 1.5);
  });

  it('counts arrays, numbers and literals', () => {
    expect(approxBytes([1, true, null, 'ab'])).toBeGreaterThan(4);
    expect(approxBytes({ a: undefined })).toBe(2);
  });
});

describe('PageSizer', () => {
  it('asks for as many objects as fit at the largest object size first', () => {
    expect(new PageSizer(500).limit).toBe(Math.floor(PAGE_BYTES / LARGEST_OBJECT_BYTES));
    expect(new PageSizer(3).limit).toBe(3);
    expect(new PageSizer(500, 100).limit).toBe(1);
  });

  it('grows to the page size for small objects, at most doubling, and shrinks for large ones', () => {
    const sizer = new PageSizer(500);
    const grown = [1, 2, 3, 4, 5, 6].map(() => {
      sizer.observe([cm('default', 'small')]);
      return sizer.limit;
    });
    expect(grown).toEqual([20, 40, 80, 160, 320, 500]);
    const large = cm('default', 'large', { payload: 'x'.repeat(MIB) });
    sizer.observe([large, large]);
    expect(sizer.limit).toBe(15); // 16 MiB at ~1 MiB each
    const huge = cm('default', 'huge', { payload: 'x'.repeat(20 * MIB) });
    sizer.observe([huge]);
    expect(sizer.limit).toBe(1);
    sizer.observe([]);
    expect(sizer.limit).toBe(1);
  });

  it('takes the size of the response when the client tells it, weighing no item', () => {
    const sizer = new PageSizer(500);
    // Items that would weigh little: the response size (4 MiB for 2) decides.
    sizer.observe([cm('default', 'a'), cm('default', 'b')], 4 * MIB);
    expect(sizer.limit).toBe(8);
    const unweighable = new Proxy(cm('default', 'c'), {
      ownKeys: () => {
        throw new Error('weighed');
      },
    });
    sizer.observe([unweighable], 1000);
    // The page tells 1,000 bytes, but an object of 2 MiB was seen already: 16 MiB / 2 MiB.
    expect(sizer.limit).toBe(8);
  });

  // Finding 9 of issue 20: tiny objects followed by large ones made the next page pageSize x
  // 1 MiB. The next limit fits PAGE_BYTES at the largest object seen so far and at most doubles.
  it.each([
    { name: 'tiny then large', pages: [100, 100, 100, MIB, 100], limits: [20, 40, 80, 16, 16] },
    { name: 'large then tiny', pages: [MIB, 100, 100], limits: [16, 16, 16] },
    {
      name: 'tiny only',
      pages: [100, 100, 100, 100, 100, 100, 100],
      limits: [20, 40, 80, 160, 320, 500, 500],
    },
  ])('bounds the next page by what was seen: $name', ({ pages, limits }) => {
    const sizer = new PageSizer(500);
    const seen: number[] = [];
    for (const size of pages) {
      const items = Array.from({ length: sizer.limit }, (_, i) => ({ i }));
      sizer.observe(items, size * items.length);
      seen.push(sizer.limit);
      // Never a page of more than about twice PAGE_BYTES at any size seen so far.
      expect(sizer.limit * size).toBeLessThanOrEqual(2 * PAGE_BYTES);
    }
    expect(seen).toEqual(limits);
  });
});

describe('a pass over large objects', () => {
  it('lists them in pages of about PAGE_BYTES on both sides', async () => {
    const payload = 'x'.repeat(4 * MIB);
    const sources = Array.from({ length: 12 }, (_, i) => cm('default', `big-${i}`, { payload }));
    const { tenantApi, hostApi } = clusters(
      sources,
      sources.map((s) => hostCopyOf(s)),
    );

    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { pageSize: 500 } });

    expect(result.complete).toBe(true);
    expect(result.counts).toMatchObject({ Create: 0, Update: 0, Delete: 0 });
    const limits = (api: typeof tenantApi) =>
      api
        .callsOf('list')
        .filter((c) => c.kind === CONFIGMAP.kind)
        .map((c) => c.options?.limit);
    // 10 at the largest object size, then 16 MiB / 4 MiB = 3 (12 objects: 10 + 2).
    expect(limits(tenantApi)).toEqual([10, 3]);
    expect(limits(hostApi)).toEqual([10, 3]);
  });

  it('lists small objects at the configured page size after the first page', async () => {
    const sources = Array.from({ length: 25 }, (_, i) => cm('default', `small-${i}`));
    const { tenantApi, hostApi } = clusters(sources, []);

    await runPass({ tenant: TENANT, tenantApi, hostApi, budget: { pageSize: 500 } });

    const limits = tenantApi
      .callsOf('list')
      .filter((c) => c.kind === CONFIGMAP.kind)
      .map((c) => c.options?.limit);
    expect(limits).toEqual([10, 20]);
  });
});
