/**
 * Memory bounded by bytes, on the real apiservers: LIST pages are byte-aware (the page size
 * first, cut off by the client past 32 MiB, then as many as fit 16 MiB at the size seen), host
 * copies are held with large fields as digests, so a steady pass reads no object twice, and a copy whose large field changed is read
 * whole (one GET) right before its update, which keeps what a host controller added.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { KindRef, ListOptions } from '../../../lib/ports/index.js';
import {
  CONFIGMAP,
  createTenant,
  decisionLines,
  type PassRunOptions,
  pass,
  type Tenant,
  tenantConfigMap,
  useApis,
} from './support.js';

const apis = useApis();
let t: Tenant;
const COUNT = 12;
const big = (c: string) => ({ payload: c.repeat(200 * 1024) });

/** The ConfigMap GETs and host LIST limits of one pass. */
async function observedPass(tenant: Tenant, options: PassRunOptions = {}) {
  const api = tenant.hostApi;
  const gets: string[] = [];
  const limits: Array<number | undefined> = [];
  const cutOff: Array<number | undefined> = [];
  const { get, list } = api;
  api.get = (kind: KindRef, namespace: string | undefined, name: string) => {
    if (kind.kind === 'ConfigMap') gets.push(name);
    return get.call(api, kind, namespace, name);
  };
  api.list = (kind: KindRef, options?: ListOptions) => {
    if (kind.kind === 'ConfigMap' && options?.namespace === tenant.hostNamespace) {
      limits.push(options.limit);
      return list.call(api, kind, options).catch((error: unknown) => {
        if ((error as { reason?: unknown }).reason === 'TooLarge') cutOff.push(options.limit);
        throw error;
      });
    }
    return list.call(api, kind, options);
  };
  try {
    return { run: await pass(tenant, options), gets, limits, cutOff };
  } finally {
    api.get = get;
    api.list = list;
  }
}

beforeAll(async () => {
  t = await createTenant(apis(), 'large');
  for (let i = 0; i < COUNT; i += 1) {
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, `big-${i}`, big('a')));
  }
});

describe('large objects', () => {
  it('the first pass creates them from byte-aware pages', async () => {
    const { run, gets, limits } = await observedPass(t);
    expect(run.result.errors).toEqual([]);
    expect(run.result.counts).toEqual({ Create: COUNT, Update: 0, Delete: 0, Skip: 0 });
    expect(gets).toEqual([]);
    expect(limits).toEqual([500]); // the host namespace holds none yet: one page at the page size
  });

  it('a steady full pass reads each object once and writes nothing; a resumed one reads none', async () => {
    const resumed = await observedPass(t);
    expect(resumed.run.result.path).toBe('resumed');
    expect(resumed.run.result.decisions).toEqual([]);
    expect([resumed.gets, resumed.limits]).toEqual([[], []]);
    const { run, gets, limits } = await observedPass(t, { full: true });
    expect(run.result.decisions).toEqual([]);
    expect(run.result.requests.host.writes).toBe(0);
    expect(gets).toEqual([]);
    // One page at the page size: 12 objects of 200 KiB are far below the cut-off (page-bytes.ts).
    expect(limits).toEqual([500]);
  });

  it('a changed large object is read whole once, then updated keeping host-added keys', async () => {
    const name = hostName('big-3', t.vns.a, t.name);
    const copy = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
    if (!copy) throw new Error('no host copy');
    copy.metadata.labels = { ...copy.metadata.labels, 'host.example/team': 'a' };
    await t.hostApi.update(copy);
    const source = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'big-3');
    if (!source) throw new Error('no tenant source');
    await t.tenantApi.update({ ...source, data: big('b') });

    const { run, gets } = await observedPass(t);

    expect(run.result.errors).toEqual([]);
    expect(decisionLines(run.result)).toEqual([`Update ConfigMap ${t.vns.a}/big-3 -> ${name}`]);
    expect(gets).toEqual([name]);
    const after = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
    expect(after?.data).toEqual(big('b'));
    expect(after?.metadata.labels?.['host.example/team']).toBe('a');
    const again = await observedPass(t);
    expect(again.run.result.decisions).toEqual([]);
    expect(again.gets).toEqual([]);
  });
});

// Finding 9 of issue 20 on the real apiserver: tiny objects first, then large ones. The first
// page is asked for at the page size, and the client cuts it off at 32 MiB instead of reading
// 500 objects of about 1 MiB; the listing asks again from there, smaller, and ramps up.
describe('large objects after tiny ones', () => {
  let mixed: Tenant;
  const LARGE = 40;
  const large = { payload: 'z'.repeat(1000 * 1024) };

  beforeAll(async () => {
    mixed = await createTenant(apis(), 'mixed');
    for (let i = 0; i < 10; i += 1) {
      await mixed.tenantApi.create(tenantConfigMap(mixed, mixed.vns.a, `a-tiny-${i}`, { n: '1' }));
    }
    for (let i = 0; i < LARGE; i += 1) {
      await mixed.tenantApi.create(tenantConfigMap(mixed, mixed.vns.a, `b-large-${i}`, large));
    }
  });

  it('cuts the page off, lists the rest in pages near 16 MiB, and a full pass then writes nothing', async () => {
    const first = await observedPass(mixed);
    expect(first.run.result.errors).toEqual([]);
    expect(first.run.result.counts).toMatchObject({ Create: 10 + LARGE, Update: 0, Delete: 0 });

    const { run, limits, cutOff } = await observedPass(mixed, { full: true });

    expect(run.result.errors).toEqual([]);
    expect(run.result.decisions).toEqual([]);
    expect(run.result.requests.host.writes).toBe(0);
    // 500 (cut off: 40 objects of 1000 KiB), then 10 (the tiny ones), then at most doubling: 20,
    // and pages of 16 (16 MiB at a bit over 1000 KiB): 10 + 20 + 16 + 4.
    expect(cutOff).toEqual([500]);
    expect(limits).toEqual([500, 10, 20, 16, 16]);
  });
});
