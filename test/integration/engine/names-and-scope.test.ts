/**
 * What reaches the host and under which name, on the real clusters: system namespaces never,
 * long names hashed with the verbatim name in the annotations, `-x-`-laden names on distinct host
 * objects, spoofed reserved metadata dropped, Secrets synced but tenant credentials kept home,
 * and the default policy. Each test has its own tenant.
 */
import { describe, expect, it } from '@jest/globals';
import { hostName, Labels, reverseLookup } from '../../../lib/engine/index.js';
import { Annotations } from '../../../lib/engine/names/metadata.js';
import {
  byName,
  CONFIGMAP,
  createTenant,
  decisionLines,
  ensureNamespace,
  hostObjects,
  LABEL,
  pass,
  SECRET,
  TENANT_CLUSTER,
  tenantConfigMap,
  tenantObject,
  useApis,
  versions,
  waitFor,
} from './support.js';

const apis = useApis();

describe('names and scope', () => {
  it('never syncs the tenant system namespaces', async () => {
    const t = await createTenant(apis(), 'sys');
    const system = ['kube-system', 'kube-public', 'kube-node-lease'];
    const made = [];
    for (const ns of system) {
      made.push(await t.tenantApi.create(tenantConfigMap(t, ns, `${t.name}-cm`)));
    }
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app'));
    try {
      const { result } = await pass(t);
      expect(result.errors).toEqual([]);
      expect(decisionLines(result)).toEqual([
        `Create ConfigMap ${t.vns.a}/app -> ${hostName('app', t.vns.a, t.name)}`,
      ]);
      const host = await hostObjects(t);
      expect(host.map((o) => o.metadata.annotations?.[Annotations.VirtualNamespace])).toEqual([
        t.vns.a,
      ]);
    } finally {
      for (const o of made) {
        await t.tenantApi.delete(CONFIGMAP, o.metadata.namespace, o.metadata.name, {
          uid: o.metadata.uid as string,
        });
      }
    }
  });

  it('hashes a long name and keeps the verbatim name in the annotations', async () => {
    const t = await createTenant(apis(), 'long');
    const long = `a-very-long-name-${'n'.repeat(120)}`;
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, long, { k: 'v' }));

    const first = await pass(t);
    expect(first.result.errors).toEqual([]);
    const expected = hostName(long, t.vns.a, t.name);
    expect(expected).toMatch(/^a-very-long-name-n+-[0-9a-f]{10}$/);
    expect(expected.length).toBeLessThanOrEqual(63);
    expect(decisionLines(first.result)).toEqual([
      `Create ConfigMap ${t.vns.a}/${long} -> ${expected}`,
    ]);

    const [host, ...others] = await hostObjects(t);
    expect(others).toEqual([]);
    expect(host?.metadata.name).toBe(expected);
    expect(host?.metadata.annotations).toMatchObject({
      [Annotations.VirtualName]: long,
      [Annotations.VirtualNamespace]: t.vns.a,
    });
    expect(host ? reverseLookup(host) : undefined).toMatchObject({
      tenant: t.name,
      kind: 'ConfigMap',
      virtualNamespace: t.vns.a,
      virtualName: long,
    });

    // The hashed copy is found again: the next pass is steady.
    const steady = await pass(t);
    expect(steady.result.decisions).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  it('`a-x-b` in `c` and `a` in `b-x-c` land on two different host objects', async () => {
    const t = await createTenant(apis(), 'xx');
    const c = `c-${t.name}`;
    const bxc = `b-x-${c}`;
    for (const ns of [c, bxc]) await ensureNamespace(t.tenantApi, ns);
    await t.tenantApi.create(tenantConfigMap(t, c, 'a-x-b', { from: 'first' }));
    await t.tenantApi.create(tenantConfigMap(t, bxc, 'a', { from: 'second' }));

    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(result.counts).toEqual({ Create: 2, Update: 0, Delete: 0, Skip: 0 });
    const first = hostName('a-x-b', c, t.name);
    const second = hostName('a', bxc, t.name);
    expect(first).not.toBe(second);
    expect(decisionLines(result)).toEqual(
      [`Create ConfigMap ${c}/a-x-b -> ${first}`, `Create ConfigMap ${bxc}/a -> ${second}`].sort(),
    );
    const host = byName(await hostObjects(t));
    expect(host.size).toBe(2);
    expect(host.get(first)?.data).toEqual({ from: 'first' });
    expect(host.get(first)?.metadata.annotations?.[Annotations.VirtualName]).toBe('a-x-b');
    expect(host.get(second)?.data).toEqual({ from: 'second' });
    expect(host.get(second)?.metadata.annotations?.[Annotations.VirtualNamespace]).toBe(bxc);
  });

  it('a data key named __proto__ is copied as the key it is, and then nothing is written', async () => {
    const t = await createTenant(apis(), 'proto');
    // Built by JSON.parse, so `__proto__` is an own key, as the apiserver's answer holds it.
    const data = JSON.parse('{"__proto__": "p", "k": "v"}') as Record<string, string>;
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'odd', data));
    const first = await pass(t);
    expect(decisionLines(first.result)).toEqual([
      `Create ConfigMap ${t.vns.a}/odd -> ${hostName('odd', t.vns.a, t.name)}`,
    ]);
    const [copy] = await hostObjects(t);
    expect(Object.entries(copy?.data ?? {})).toEqual([
      ['__proto__', 'p'],
      ['k', 'v'],
    ]);
    const steady = await pass(t);
    expect(steady.result.decisions).toEqual([]);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  it('drops spoofed tenantplane.io/* and managed-by labels and annotations', async () => {
    const t = await createTenant(apis(), 'spoof');
    await t.tenantApi.create(
      tenantConfigMap(
        t,
        t.vns.a,
        'app',
        { k: 'v' },
        {
          labels: {
            [Labels.ManagedBy]: 'helm',
            [Labels.Tenant]: 'someone-else',
            [Labels.VirtualNamespace]: 'kube-system',
            [Labels.Kind]: 'Secret',
            'tenantplane.io/anything': 'x',
            keep: 'yes',
          },
          annotations: {
            [Annotations.VirtualName]: 'fake',
            [Annotations.VirtualNamespace]: 'kube-system',
            [Annotations.VirtualUid]: 'not-the-uid',
            [Annotations.OwnedKeys]: '{"labels":["keep"]}',
            'tenantplane.io/other': 'x',
            note: 'kept',
          },
        },
      ),
    );
    const source = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'app');
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    const [host] = await hostObjects(t);
    expect(host?.metadata.name).toBe(hostName('app', t.vns.a, t.name));
    expect(host?.metadata.labels).toEqual({
      keep: 'yes',
      [LABEL]: t.name,
      [Labels.ManagedBy]: 'tenantplane',
      [Labels.Tenant]: t.name,
      [Labels.VirtualNamespace]: t.vns.a,
      [Labels.Kind]: 'ConfigMap',
    });
    const annotations = host?.metadata.annotations ?? {};
    expect(annotations).toMatchObject({
      note: 'kept',
      [Annotations.VirtualName]: 'app',
      [Annotations.VirtualNamespace]: t.vns.a,
      [Annotations.VirtualUid]: source?.metadata.uid,
    });
    expect(annotations).not.toHaveProperty('tenantplane.io/other');
    expect(JSON.parse(annotations[Annotations.OwnedKeys] ?? '{}')).toEqual({
      labels: [LABEL, 'keep'].sort(),
      annotations: ['note'],
    });
  });

  it('syncs Secrets but never service-account tokens or kube-root-ca.crt', async () => {
    const t = await createTenant(apis(), 'creds', { toHost: [CONFIGMAP, SECRET] });
    await t.tenantApi.create(
      tenantObject(t, SECRET, t.vns.a, 'db', { type: 'Opaque', data: { password: 'c2VjcmV0' } }),
    );
    await t.tenantApi.create(
      tenantObject(
        t,
        SECRET,
        t.vns.a,
        'default-token',
        { type: 'kubernetes.io/service-account-token', data: { token: 'dG9rZW4=' } },
        { annotations: { 'kubernetes.io/service-account.name': 'default' } },
      ),
    );
    // The tenant's controller manager publishes kube-root-ca.crt in every namespace, as a real
    // cluster does: label it as this test's own, so that only its name keeps it from syncing.
    const published = await waitFor('kube-root-ca.crt published', () =>
      t.tenantApi.get(CONFIGMAP, t.vns.a, 'kube-root-ca.crt'),
    );
    await t.tenantApi.update({
      ...published,
      metadata: {
        ...published.metadata,
        labels: { ...published.metadata.labels, [LABEL]: t.name },
      },
    });
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'settings'));

    const { result, logs } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(decisionLines(result)).toEqual([
      `Create ConfigMap ${t.vns.a}/settings -> ${hostName('settings', t.vns.a, t.name)}`,
      `Create Secret ${t.vns.a}/db -> ${hostName('db', t.vns.a, t.name)}`,
    ]);
    const secrets = await hostObjects(t, SECRET);
    expect(secrets.map((s) => s.metadata.name)).toEqual([hostName('db', t.vns.a, t.name)]);
    expect(secrets[0]).toMatchObject({ type: 'Opaque', data: { password: 'c2VjcmV0' } });
    expect(Object.keys(versions(await hostObjects(t)))).toEqual([
      hostName('settings', t.vns.a, t.name),
    ]);
    // Secret data never reaches the logs or the decisions.
    expect(JSON.stringify({ logs, d: result.decisions })).not.toContain('c2VjcmV0');
  });

  it('the default policy (no toHost) syncs ConfigMaps and Secrets', async () => {
    const t = await createTenant(apis(), 'dflt', { toHost: 'default' });
    const tc = await t.hostApi.get(TENANT_CLUSTER, undefined, t.name);
    expect(tc?.spec).not.toHaveProperty('toHost');
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'settings'));
    await t.tenantApi.create(
      tenantObject(t, SECRET, t.vns.a, 'db', { type: 'Opaque', data: { p: 'eA==' } }),
    );

    // The tenant apiserver is shared, so this pass may sync other files' objects too: look at ours.
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    expect(result.complete).toBe(true);
    expect(Object.keys(result.objectsSeen)).toEqual(['ConfigMap', 'Secret']);
    expect(new Set(result.decisions.map((d) => `${d.action} ${d.kind}`))).toEqual(
      new Set(['Create ConfigMap', 'Create Secret']),
    );
    const mine = result.decisions.filter((d) => d.tenantRef.namespace === t.vns.a);
    expect(mine.map((d) => `${d.kind} ${d.tenantRef.name} -> ${d.hostRef.name}`).sort()).toEqual([
      `ConfigMap settings -> ${hostName('settings', t.vns.a, t.name)}`,
      `Secret db -> ${hostName('db', t.vns.a, t.name)}`,
    ]);
    for (const d of result.decisions) {
      expect(['kube-system', 'kube-public', 'kube-node-lease']).not.toContain(
        d.tenantRef.namespace,
      );
      expect(d.tenantRef.name).not.toBe('kube-root-ca.crt');
    }
    expect(byName(await hostObjects(t, SECRET)).get(hostName('db', t.vns.a, t.name))?.data).toEqual(
      {
        p: 'eA==',
      },
    );
  });
});
