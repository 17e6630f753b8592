/**
 * One tenant through its life on the real tenant + host apiservers: first pass creates, an edit
 * updates, an unchanged tenant writes nothing and adds no Event, a delete is garbage-collected
 * with a Warning Event; then what an operator sees (kubectl describe, status.lastPass, kubectl get).
 * The steps build on each other, in order.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { hostName, Labels } from '../../../lib/engine/index.js';
import { Annotations } from '../../../lib/engine/names/metadata.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import {
  byName,
  CONFIGMAP,
  createTenant,
  decisionLines,
  eventTally,
  hostObjects,
  kubectl,
  type PassRun,
  pass,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  tenantEvents,
  useApis,
  versions,
} from './support.js';

const apis = useApis();
let t: Tenant;
const runs: PassRun[] = [];
const sources = new Map<string, KubeObject>();

beforeAll(async () => {
  t = await createTenant(apis(), 'life');
  for (const [ns, name, data] of [
    [t.vns.a, 'app', { color: 'blue' }],
    [t.vns.a, 'other', { size: 'm' }],
    [t.vns.b, 'db', { pool: '10' }],
  ] as const) {
    sources.set(`${ns}/${name}`, await t.tenantApi.create(tenantConfigMap(t, ns, name, data)));
  }
});

const hn = (ns: string, name: string) => hostName(name, ns, t.name);

describe('a tenant through its life', () => {
  it('the first pass creates one host object per tenant object, with the reverse mapping', async () => {
    const run = await pass(t);
    runs.push(run);
    const { result } = run;
    expect(result.errors).toEqual([]);
    expect(result.complete).toBe(true);
    expect(decisionLines(result)).toEqual(
      [
        `Create ConfigMap ${t.vns.a}/app -> ${hn(t.vns.a, 'app')}`,
        `Create ConfigMap ${t.vns.a}/other -> ${hn(t.vns.a, 'other')}`,
        `Create ConfigMap ${t.vns.b}/db -> ${hn(t.vns.b, 'db')}`,
      ].sort(),
    );
    expect(result.counts).toEqual({ Create: 3, Update: 0, Delete: 0, Skip: 0 });
    // 3 creates; reads: TenantCluster, discovery and the host LIST.
    expect(result.requests.host.writes).toBe(3);
    expect(result.requests.tenant.writes).toBe(0);

    const host = byName(await hostObjects(t));
    expect([...host.keys()].sort()).toEqual(
      [hn(t.vns.a, 'app'), hn(t.vns.a, 'other'), hn(t.vns.b, 'db')].sort(),
    );
    const app = host.get(hn(t.vns.a, 'app'));
    expect(app?.data).toEqual({ color: 'blue' });
    expect(app?.metadata.labels).toMatchObject({
      [Labels.ManagedBy]: 'tenantplane',
      [Labels.Tenant]: t.name,
      [Labels.VirtualNamespace]: t.vns.a,
      [Labels.Kind]: 'ConfigMap',
    });
    expect(app?.metadata.annotations).toMatchObject({
      [Annotations.VirtualNamespace]: t.vns.a,
      [Annotations.VirtualName]: 'app',
      [Annotations.VirtualUid]: sources.get(`${t.vns.a}/app`)?.metadata.uid,
    });

    // One Event per decision plus the pass summary, all Normal; one log line per decision + pass.
    const events = await tenantEvents(t);
    expect(events.filter((e) => e.reason === 'Create')).toHaveLength(3);
    expect(events.filter((e) => e.reason === 'PassSummary')).toHaveLength(1);
    expect(events.every((e) => e.type === 'Normal')).toBe(true);
    expect(run.events.lastReport).toMatchObject({ created: 3, summary: 'created', failures: [] });
    expect(run.logs.filter((l) => l.type === 'decision')).toHaveLength(3);
    expect(run.logs.filter((l) => l.type === 'pass')).toEqual([
      expect.objectContaining({
        tenant: t.name,
        passId: result.passId,
        creates: 3,
        complete: true,
      }),
    ]);
  });

  it('a tenant edit is an Update of that host object only', async () => {
    const before = await hostObjects(t);
    const app = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'app');
    await t.tenantApi.update({ ...(app as KubeObject), data: { color: 'green' } });

    const run = await pass(t);
    runs.push(run);
    expect(run.result.errors).toEqual([]);
    expect(decisionLines(run.result)).toEqual([
      `Update ConfigMap ${t.vns.a}/app -> ${hn(t.vns.a, 'app')}`,
    ]);
    expect(run.result.decisions[0]?.reason).toMatch(/differs from the tenant source in data/);
    expect(run.result.requests.host.writes).toBe(1);

    const after = await hostObjects(t);
    const changed = byName(after).get(hn(t.vns.a, 'app'));
    expect(changed?.data).toEqual({ color: 'green' });
    const untouched = (objects: KubeObject[]) => {
      const v = versions(objects);
      delete v[hn(t.vns.a, 'app')];
      return v;
    };
    expect(untouched(after)).toEqual(untouched(before));
    expect(changed?.metadata.uid).toBe(byName(before).get(hn(t.vns.a, 'app'))?.metadata.uid);
  });

  it('an unchanged tenant: zero write requests, zero new Events, host untouched', async () => {
    const hostBefore = versions(await hostObjects(t));
    const tallyBefore = await eventTally(t);
    for (let i = 0; i < 2; i++) {
      const countsBefore = t.hostApi.requestCount();
      const run = await pass(t);
      runs.push(run);
      const { result } = run;
      expect(result.decisions).toEqual([]);
      expect(result.errors).toEqual([]);
      expect(result.complete).toBe(true);
      expect(result.requests.host.writes).toBe(0);
      expect(result.requests.tenant.writes).toBe(0);
      // A resumed pass: the TenantCluster GET and no host listing; the tenant identity GET, the
      // one-item LIST that reads the current resourceVersion, and the watch resumed from it.
      expect(result.path).toBe('resumed');
      expect(result.requests.host.reads).toBe(1);
      expect(result.requests.tenant.reads).toBe(3);
      // Nothing at all is written: no objects, no Events, and status.lastPass keeps the last
      // pass that acted (a clean no-op pass only refreshes it after the report interval).
      expect(result.statusWritten).toBe(false);
      expect(t.hostApi.requestCount().writes - countsBefore.writes).toBe(0);
      expect(run.events.lastReport).toMatchObject({ created: 0, bumped: 0, summary: 'none' });
      expect(run.logs.filter((l) => l.type === 'decision')).toEqual([]);
    }
    expect(versions(await hostObjects(t))).toEqual(hostBefore);
    expect(await eventTally(t)).toEqual(tallyBefore);
  });

  it('a tenant delete is a Delete, recorded as a Warning Event', async () => {
    const other = sources.get(`${t.vns.a}/other`) as KubeObject;
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'other', { uid: other.metadata.uid as string });

    const run = await pass(t);
    runs.push(run);
    expect(run.result.errors).toEqual([]);
    expect(decisionLines(run.result)).toEqual([
      `Delete ConfigMap ${t.vns.a}/other -> ${hn(t.vns.a, 'other')}`,
    ]);
    expect(run.result.decisions[0]?.reason).toMatch(/no longer exists/);
    const host = byName(await hostObjects(t));
    expect(host.has(hn(t.vns.a, 'other'))).toBe(false);
    expect(host.has(hn(t.vns.a, 'app'))).toBe(true);

    const deletes = (await tenantEvents(t)).filter((e) => e.reason === 'Delete');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.type).toBe('Warning');
    expect(deletes[0]?.message).toContain(`${t.hostNamespace}/${hn(t.vns.a, 'other')}`);
  });

  it('kubectl describe tenantcluster shows the Events', async () => {
    const out = await kubectl(['describe', 'tenantcluster', t.name]);
    expect(out).toMatch(new RegExp(`^Name:\\s+${t.name}$`, 'm'));
    expect(out).toMatch(/^Events:/m);
    expect(out).toMatch(/Normal\s+Create\s/);
    expect(out).toMatch(/Normal\s+Update\s/);
    expect(out).toMatch(/Warning\s+Delete\s/);
    expect(out).toMatch(/Normal\s+PassSummary\s/);
    expect(out).toContain(`ConfigMap ${t.vns.a}/other -> host ${t.hostNamespace}/`);
    expect(out).toContain('tenantplane-sync');
  });

  it('status.lastPass shows the last pass; kubectl get shows the printer columns', async () => {
    const last = runs.at(-1)?.result;
    const status = (await tenantClusterObject(t)).status as { lastPass?: Record<string, unknown> };
    expect(status.lastPass).toMatchObject({
      passId: last?.passId,
      startedAt: last?.startedAt,
      finishedAt: last?.finishedAt,
      complete: true,
      counts: { create: 0, update: 0, delete: 1, skip: 0 },
      errorCount: 0,
    });
    expect(status.lastPass).not.toHaveProperty('incompleteReason');

    const out = await kubectl(['get', 'tenantclusters', t.name, '-o', 'wide']);
    const [header, row, ...rest] = out.trim().split('\n');
    expect(rest).toEqual([]);
    const columns = header?.split(/\s{2,}/);
    expect(columns).toEqual([
      'NAME',
      'HOST-NAMESPACE',
      'READY',
      'LAST-PASS',
      'AGE',
      'REASON',
      'PAUSED',
      'COMPLETE',
      'FOLLOWED',
      'CREATED',
      'UPDATED',
      'DELETED',
      'SKIPPED',
      'FAILED',
      'ERRORS',
    ]);
    const cells = row?.split(/\s{2,}/);
    expect(cells?.slice(0, 3)).toEqual([t.name, t.hostNamespace, 'True']);
    // Never followed: the Followed cell is empty.
    expect(cells?.slice(5)).toEqual(['Converged', 'false', 'true', '0', '0', '1', '0', '0', '0']);
  });
});
