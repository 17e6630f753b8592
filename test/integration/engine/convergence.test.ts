/**
 * Convergence on the real clusters: every pass makes progress and a converged tenant costs
 * nothing. Recreated immutable ConfigMaps and Secrets and a Secret whose type changed are replaced
 * in one pass; a host CRD that prunes a field costs one update, then nothing; an edited copy is
 * still repaired; objects a host admission policy rejects back off while the orphans go first
 * under a write budget; the counts are honest in status and Events; a persistent Skip writes no
 * status. Every test snapshots uid + resourceVersion of the host namespace and checks that only
 * the expected objects changed. Each test has its own tenant.
 */
import { describe, expect, it } from '@jest/globals';
import { KubernetesEventsSink } from '../../../lib/adapters/events/index.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { LogSink } from '../../../lib/adapters/log-sink.js';
import { type Budget, hostName, runPass } from '../../../lib/engine/index.js';
import type { ClusterApi, KindRef, KubeObject } from '../../../lib/ports/index.js';
import {
  admissionPolicy,
  CONFIGMAP,
  CRD,
  clusters,
  createTenant,
  decisionLines,
  eventTally,
  hostObjects,
  listAll,
  type PassRun,
  pass,
  RUN,
  SECRET,
  type Tenant,
  tenantClusterObject,
  tenantConfigMap,
  tenantEvents,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** uid/resourceVersion of every object of `kinds` in the tenant's host namespace, by name. */
async function snapshot(t: Tenant, kinds: readonly KindRef[] = [CONFIGMAP, SECRET]) {
  const all = new Map<string, string>();
  for (const kind of kinds) {
    for (const o of await listAll(t.hostApi, kind, t.hostNamespace)) {
      all.set(`${kind.kind} ${o.metadata.name}`, `${o.metadata.uid}/${o.metadata.resourceVersion}`);
    }
  }
  return all;
}

/** `Kind name` of every object added, removed or changed between two snapshots, sorted. */
function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}

/** A pass with the real sinks, dated by `now` (back-off is measured in that time). */
async function passAt(
  t: Tenant,
  now: number,
  options: { budget?: Partial<Budget>; hostApi?: ClusterApi } = {},
): Promise<PassRun> {
  const logs: Record<string, unknown>[] = [];
  const hostApi = options.hostApi ?? t.hostApi;
  const events = new KubernetesEventsSink({ hostApi, tenant: t.name });
  const result = await runPass({
    tenant: t.name,
    tenantApi: t.tenantApi,
    hostApi,
    clock: { now: () => now },
    sinks: [events, new LogSink((r) => logs.push(r))],
    ...(options.budget ? { budget: options.budget } : {}),
  });
  return { result, logs, events };
}

async function recreate(t: Tenant, object: KubeObject): Promise<KubeObject> {
  const { namespace, name } = object.metadata;
  const old = await t.tenantApi.get(object, namespace, name);
  if (old) {
    await t.tenantApi.delete(object, namespace, name, { uid: old.metadata.uid as string });
    await waitFor(`${name} gone`, async () =>
      (await t.tenantApi.get(object, namespace, name)) ? undefined : true,
    );
  }
  return t.tenantApi.create(object);
}

describe('replace', () => {
  it('recreated immutable ConfigMap and Secret converge in one pass: two Decisions each, new data', async () => {
    const t = await createTenant(apis(), 'immut', { toHost: [CONFIGMAP, SECRET] });
    const cfg = (v: string) => ({
      ...tenantConfigMap(t, t.vns.a, 'cfg', { k: v }),
      immutable: true,
    });
    const sec = (v: string) => ({
      ...tenantObject(t, SECRET, t.vns.a, 'sec', { type: 'Opaque', data: { password: b64(v) } }),
      immutable: true,
    });
    await t.tenantApi.create(cfg('old'));
    await t.tenantApi.create(sec('old'));
    await t.tenantApi.create(tenantConfigMap(t, t.vns.b, 'other'));
    expect((await pass(t)).result.counts.Create).toBe(3);

    await recreate(t, cfg('new'));
    await recreate(t, sec('new'));
    const before = await snapshot(t);
    const { result } = await pass(t);
    const hCfg = hostName('cfg', t.vns.a, t.name);
    const hSec = hostName('sec', t.vns.a, t.name);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result)).toEqual([
      `Create ConfigMap ${t.vns.a}/cfg -> ${hCfg}`,
      `Create Secret ${t.vns.a}/sec -> ${hSec}`,
      `Delete ConfigMap ${t.vns.a}/cfg -> ${hCfg}`,
      `Delete Secret ${t.vns.a}/sec -> ${hSec}`,
    ]);
    for (const d of result.decisions) {
      expect(d.reason).toMatch(/^replacement: tenant (ConfigMap|Secret) .* was recreated and data/);
    }
    expect(result.counts).toEqual({ Create: 2, Update: 0, Delete: 2, Skip: 0 });
    expect((await t.hostApi.get(CONFIGMAP, t.hostNamespace, hCfg))?.data).toEqual({ k: 'new' });
    expect((await t.hostApi.get(SECRET, t.hostNamespace, hSec))?.data).toEqual({
      password: b64('new'),
    });
    expect(changed(before, await snapshot(t))).toEqual([`ConfigMap ${hCfg}`, `Secret ${hSec}`]);

    const after = await snapshot(t);
    const steady = await pass(t);
    expect(steady.result.decisions).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
    expect(changed(after, await snapshot(t))).toEqual([]);
  });

  it('a Secret whose type changed is replaced; nothing else is touched', async () => {
    const t = await createTenant(apis(), 'sectype', { toHost: [SECRET] });
    const cred = (type: string) =>
      tenantObject(t, SECRET, t.vns.a, 'cred', {
        type,
        data: { username: b64('app'), password: b64('s3cret') },
      });
    await t.tenantApi.create(cred('Opaque'));
    await t.tenantApi.create(tenantObject(t, SECRET, t.vns.a, 'keep', { data: { a: b64('b') } }));
    await pass(t);
    await recreate(t, cred('kubernetes.io/basic-auth'));
    const before = await snapshot(t);
    const { result } = await pass(t);
    const h = hostName('cred', t.vns.a, t.name);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result)).toEqual([
      `Create Secret ${t.vns.a}/cred -> ${h}`,
      `Delete Secret ${t.vns.a}/cred -> ${h}`,
    ]);
    expect(result.decisions[0]?.reason).toMatch(/type is immutable/);
    expect((await t.hostApi.get(SECRET, t.hostNamespace, h))?.type).toBe(
      'kubernetes.io/basic-auth',
    );
    expect(changed(before, await snapshot(t))).toEqual([`Secret ${h}`]);
  });
});

const GROUP = `c${RUN}.convergence.tenantplane.test`;
const WIDGET: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'Widget' };

/** The Widget CRD: the tenant's keeps any spec field, the host's prunes all but `size`. */
function widgetCrd(prunes: boolean): KubeObject {
  const spec = prunes
    ? { type: 'object', properties: { size: { type: 'integer' } } }
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    ...CRD,
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}

async function installWidgets(api: ClusterApi, prunes: boolean): Promise<void> {
  if (!(await api.get(CRD, undefined, `widgets.${GROUP}`))) await api.create(widgetCrd(prunes));
  await waitFor(`kind Widget served`, async () => {
    await api.list(WIDGET, { limit: 1 });
    return true;
  });
}

describe('writes that stick once', () => {
  it('a host CRD that prunes a field costs one Update, then zero writes; an edit is repaired', async () => {
    await installWidgets(apis().tenantApi, false);
    await installWidgets(apis().hostApi, true);
    const t = await createTenant(apis(), 'prune', { toHost: [WIDGET] });
    await t.tenantApi.create(
      tenantObject(t, WIDGET, t.vns.a, 'w1', { spec: { size: 1, extra: 'x' } }),
    );
    const h = hostName('w1', t.vns.a, t.name);
    const kinds = [WIDGET];

    const first = await pass(t);
    expect(decisionLines(first.result)).toEqual([`Create Widget ${t.vns.a}/w1 -> ${h}`]);
    expect((await t.hostApi.get(WIDGET, t.hostNamespace, h))?.spec).toEqual({ size: 1 });

    const before = await snapshot(t, kinds);
    const second = await pass(t);
    expect(decisionLines(second.result)).toEqual([`Update Widget ${t.vns.a}/w1 -> ${h}`]);
    expect(changed(before, await snapshot(t, kinds))).toEqual([`Widget ${h}`]);

    const recorded = await snapshot(t, kinds);
    for (let i = 0; i < 3; i++) {
      const steady = await pass(t);
      expect(steady.result.decisions).toEqual([]);
      expect(steady.result.requests.host.writes).toBe(0);
    }
    expect(changed(recorded, await snapshot(t, kinds))).toEqual([]);

    // Someone else edits the copy: the next full pass (`--full`, or the resync) repairs it.
    const editor = createClusterApi(clusters.host, { fieldManager: 'someone-else' });
    try {
      const copy = (await t.hostApi.get(WIDGET, t.hostNamespace, h)) as KubeObject;
      await editor.update({ ...copy, spec: { size: 5 } });
    } finally {
      await editor.close();
    }
    const repair = await pass(t, { full: true });
    expect(decisionLines(repair.result)).toEqual([`Update Widget ${t.vns.a}/w1 -> ${h}`]);
    expect((await t.hostApi.get(WIDGET, t.hostNamespace, h))?.spec).toEqual({ size: 1 });
    // The repair was pruned again: at most one more Update records that, then nothing.
    let quiet = 0;
    for (let i = 0; i < 3; i++) {
      const after = await pass(t);
      if (after.result.requests.host.writes === 0) quiet += 1;
    }
    expect(quiet).toBeGreaterThanOrEqual(2);
  });

  it('an edited ConfigMap copy is left by a resumed pass, repaired by a full one, and only it is written', async () => {
    const t = await createTenant(apis(), 'edited');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app', { color: 'blue' }));
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'other'));
    await pass(t);
    const h = hostName('app', t.vns.a, t.name);
    const editor = createClusterApi(clusters.host, { fieldManager: 'someone-else' });
    try {
      const copy = (await t.hostApi.get(CONFIGMAP, t.hostNamespace, h)) as KubeObject;
      await editor.update({ ...copy, data: { color: 'red', added: 'yes' } });
    } finally {
      await editor.close();
    }
    const before = await snapshot(t);
    // Host drift is not the resumed pass's to see: it reads only what changed in the tenant.
    const resumed = await pass(t);
    expect(resumed.result.path).toBe('resumed');
    expect(decisionLines(resumed.result)).toEqual([]);
    expect(changed(before, await snapshot(t))).toEqual([]);
    const { result } = await pass(t, { full: true });
    expect(decisionLines(result)).toEqual([`Update ConfigMap ${t.vns.a}/app -> ${h}`]);
    expect((await t.hostApi.get(CONFIGMAP, t.hostNamespace, h))?.data).toEqual({ color: 'blue' });
    expect(changed(before, await snapshot(t))).toEqual([`ConfigMap ${h}`]);
    expect((await pass(t)).result.requests.host.writes).toBe(0);
  });
});

const DENIAL = 'ConfigMaps here may not carry the key forbidden';

/** Denies creating ConfigMaps whose data has the key `forbidden`, in the tenant's host namespace. */
function denyForbiddenKey(t: Tenant): Promise<KubeObject[]> {
  return admissionPolicy(t, {
    name: `conv-deny-${t.name}`,
    operations: ['CREATE'],
    resources: ['configmaps'],
    validation: {
      expression: "!has(object.data) || !('forbidden' in object.data)",
      message: DENIAL,
      reason: 'Invalid',
    },
    probeData: { forbidden: 'x' },
    denial: DENIAL,
  });
}

async function removeAll(t: Tenant, objects: KubeObject[]): Promise<void> {
  for (const object of objects.reverse()) {
    await t.hostApi.delete(object, undefined, object.metadata.name, {
      uid: object.metadata.uid as string,
    });
  }
}

describe('progress under a budget', () => {
  it('rejected objects back off, orphans go within the bound, counts are honest', async () => {
    const t = await createTenant(apis(), 'budget');
    const admission = await denyForbiddenKey(t);
    try {
      const good = ['g0', 'g1', 'g2', 'g3', 'g4'];
      for (const n of good) await t.tenantApi.create(tenantConfigMap(t, t.vns.a, n));
      expect((await pass(t)).result.counts.Create).toBe(5);
      // Four sources deleted (orphans), four the host rejects: N = 4 > maxWrites = 3.
      for (const n of good.slice(0, 4)) {
        const o = await t.tenantApi.get(CONFIGMAP, t.vns.a, n);
        await t.tenantApi.delete(CONFIGMAP, t.vns.a, n, { uid: o?.metadata.uid as string });
      }
      const bad = ['b0', 'b1', 'b2', 'b3'];
      for (const n of bad)
        await t.tenantApi.create(tenantConfigMap(t, t.vns.a, n, { forbidden: 'x' }));
      const orphans = good.slice(0, 4).map((n) => `ConfigMap ${hostName(n, t.vns.a, t.name)}`);
      const before = await snapshot(t);

      // README "Bounds": with one kind, every pass deletes min(orphans, B) orphans before any
      // create, so 4 orphans and B = 3 take ceil(4 / 3) = 2 passes.
      let now = Date.parse('2030-01-01T00:00:00Z');
      const runs: PassRun[] = [];
      for (let i = 0; i < 6; i++) {
        runs.push(await passAt(t, now, { budget: { maxWrites: 3 } }));
        now += 5 * 60_000;
      }
      const [p1, p2] = runs;
      expect(p1?.result.counts).toEqual({ Create: 0, Update: 0, Delete: 3, Skip: 0 });
      expect(p2?.result.counts.Delete).toBe(1);
      expect(changed(before, await snapshot(t))).toEqual(orphans.sort());

      // Every pass stayed within the budget; each rejected object was attempted, then backed off.
      for (const run of runs) expect(run.result.requests.host.writes).toBeLessThanOrEqual(3);
      const attempts = runs.map((r) => r.result.failed?.Create ?? 0);
      expect(attempts.reduce((a, b) => a + b, 0)).toBeLessThan(bad.length * runs.length);
      const backingOff = runs
        .at(-2)
        ?.result.errors.filter((e) => /^not retried before/.test(e.message));
      expect(backingOff?.length).toBeGreaterThan(0);

      // Honest counts of a pass with failed writes: status, Events.
      const failing = runs.find((r) => (r.result.failed?.Create ?? 0) > 0)?.result;
      expect(failing?.counts.Create).toBe(0);
      const events = await tenantEvents(t);
      const failedEvent = events.find((e) => e.reason === 'CreateFailed');
      expect(failedEvent?.type).toBe('Warning');
      expect(failedEvent?.message).toContain(`(Create failed: `);
      expect(failedEvent?.message).toContain(DENIAL);
      const summary = events.find(
        (e) => e.reason === 'PassSummary' && /failed \(\d Create\)/.test(String(e.message)),
      );
      expect(summary).toBeDefined();
      const status = (await tenantClusterObject(t)).status as {
        lastPass: { counts: Record<string, number>; failed: Record<string, number> };
        retries: Array<{ object: string; reason: string; failures: number }>;
      };
      expect(status.retries.map((r) => r.object).sort()).toEqual(bad.map((n) => `${t.vns.a}/${n}`));
      expect(status.retries.every((r) => r.reason === 'Invalid')).toBe(true);
    } finally {
      await removeAll(t, admission);
    }
  });

  it('a delete that finds its copy gone is reported as already gone, not as a Delete', async () => {
    const t = await createTenant(apis(), 'gone');
    const source = await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    await pass(t);
    await t.tenantApi.delete(CONFIGMAP, t.vns.a, 'app', { uid: source.metadata.uid as string });
    // Someone removes the copy between the pass's listing and its delete.
    const racing: ClusterApi = Object.create(t.hostApi, {
      delete: {
        value: async (...args: Parameters<ClusterApi['delete']>) => {
          await t.hostApi.delete(...args);
          return t.hostApi.delete(...args);
        },
      },
    });
    const { result } = await passAt(t, Date.now(), { hostApi: racing });
    expect(result.counts.Delete).toBe(0);
    expect(result.alreadyGone).toBe(1);
    expect(result.errors).toEqual([]);
    expect(result.decisions[0]?.reason).toMatch(/the host copy was already gone$/);
    const status = (await tenantClusterObject(t)).status as {
      lastPass: { counts: Record<string, number> };
    };
    expect(status.lastPass.counts).toMatchObject({ delete: 0, alreadyGone: 1 });
  });
});

describe('a converged tenant costs nothing', () => {
  it('a persistent Skip writes status once, then no status and no host write; its Event is bumped', async () => {
    const t = await createTenant(apis(), 'skip');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'taken'));
    await t.hostApi.create({
      ...CONFIGMAP,
      metadata: { name: hostName('taken', t.vns.a, t.name), namespace: t.hostNamespace },
      data: { owner: 'someone else' },
    });
    const first = await pass(t);
    expect(first.result.counts.Skip).toBe(1);
    expect(first.result.statusWritten).toBe(true);
    const rv = (await tenantClusterObject(t)).metadata.resourceVersion;
    const host = await snapshot(t);
    const tally = await eventTally(t);
    for (let i = 0; i < 3; i++) {
      const again = await pass(t);
      expect(again.result.counts).toEqual({ Create: 0, Update: 0, Delete: 0, Skip: 1 });
      expect(again.result.statusWritten).toBe(false);
      expect(again.result.requests.host.writes).toBe(0);
    }
    expect((await tenantClusterObject(t)).metadata.resourceVersion).toBe(rv);
    expect(changed(host, await snapshot(t))).toEqual([]);
    expect((await eventTally(t)).total).toBeGreaterThan(tally.total);
    expect(await hostObjects(t)).toHaveLength(1);
  });
});
