/**
 * Memory bounded by bytes, on the real apiservers: LIST pages are byte-aware (10 objects first,
 * then as many as fit 16 MiB at the size seen), host copies are held with large fields as
 * digests, so a steady pass reads no object twice, and a copy whose large field changed is read
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
  const { get, list } = api;
  api.get = (kind: KindRef, namespace: string | undefined, name: string) => {
    if (kind.kind === 'ConfigMap') gets.push(name);
    return get.call(api, kind, namespace, name);
  };
  api.list = (kind: KindRef, options?: ListOptions) => {
    if (kind.kind === 'ConfigMap' && options?.namespace === tenant.hostNamespace) {
      limits.push(options.limit);
    }
    return list.call(api, kind, options);
  };
  try {
    return { run: await pass(tenant, options), gets, limits };
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
    expect(limits).toEqual([10]); // the host namespace holds none yet
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
    // 10 at the largest object size, then at most double (page-bytes.ts: about 16 MiB / 200 KiB
    // would allow 80, but a page never more than doubles the last) for the 2 left.
    expect(limits).toEqual([10, 20]);
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
