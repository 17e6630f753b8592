import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { ClusterError, ClusterErrorReason, type KubeObject } from '../../../lib/ports/index.js';
import { integrationClusters } from '../support/clusters.js';

const clusters = integrationClusters();
// Unique per run, so the file also passes against a long-lived control plane.
const RUN = Date.now().toString(36);
const NS = `adapters-client-${RUN}`;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const TENANT_CLUSTER = { apiVersion: 'tenantplane.io/v1alpha1', kind: 'TenantCluster' };
const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const WIDGET = { apiVersion: 'adapters.tenantplane.test/v1', kind: 'Widget' };

async function reason(promise: Promise<unknown>): Promise<ClusterError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ClusterError);
    return error as ClusterError;
  }
  throw new Error('expected a ClusterError, got success');
}

function configMap(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

async function ensureNamespace(api: KubeClusterApi, name: string): Promise<void> {
  const existing = await api.get(NAMESPACE, undefined, name);
  if (!existing) await api.create({ ...NAMESPACE, metadata: { name } });
}

describe('createClusterApi against a real kube-apiserver', () => {
  let tenant: KubeClusterApi;
  let host: KubeClusterApi;

  beforeAll(async () => {
    tenant = createClusterApi(clusters.tenant);
    host = createClusterApi(clusters.host);
    await ensureNamespace(tenant, NS);
  });

  afterAll(async () => {
    await tenant.close();
    await host.close();
  });

  it('creates, gets, updates and deletes a ConfigMap, exactly as the server returns it', async () => {
    const created = await tenant.create(configMap('basic', { a: '1' }));
    expect(created.metadata.uid).toBeTruthy();
    expect(created.metadata.resourceVersion).toBeTruthy();
    expect(typeof created.metadata.creationTimestamp).toBe('string');

    const got = await tenant.get(CM, NS, 'basic');
    expect(got?.data).toEqual({ a: '1' });
    expect(got?.apiVersion).toBe('v1');
    expect(got?.kind).toBe('ConfigMap');

    const updated = await tenant.update({ ...got!, data: { a: '2' } });
    expect(updated.data).toEqual({ a: '2' });
    expect(updated.metadata.resourceVersion).not.toBe(got?.metadata.resourceVersion);

    await tenant.delete(CM, NS, 'basic', { uid: created.metadata.uid! });
    expect(await tenant.get(CM, NS, 'basic')).toBeUndefined();
  });

  it('lists one page per call with limit and continue, items carrying apiVersion and kind', async () => {
    for (let i = 0; i < 7; i++) await tenant.create(configMap(`page-${i}`));
    const names: string[] = [];
    let pages = 0;
    let token: string | undefined;
    do {
      const page = await tenant.list(CM, {
        namespace: NS,
        labelSelector: '',
        limit: 3,
        ...(token ? { continueToken: token } : {}),
      });
      pages += 1;
      expect(page.items.length).toBeLessThanOrEqual(3);
      // What the page weighed: its JSON text, at least its items' (byte-aware page sizes).
      expect(page.bytes).toBeGreaterThanOrEqual(JSON.stringify(page.items).length * 0.9);
      for (const item of page.items) {
        expect(item.apiVersion).toBe('v1');
        expect(item.kind).toBe('ConfigMap');
        names.push(item.metadata.name);
      }
      token = page.continueToken;
    } while (token);
    expect(names.filter((n) => n.startsWith('page-')).sort()).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`),
    );
    expect(pages).toBeGreaterThanOrEqual(3);

    // All namespaces when no namespace is given; a label selector narrows it.
    const all = await tenant.list(CM, { fieldSelector: `metadata.namespace=${NS}` });
    expect(all.items.length).toBeGreaterThanOrEqual(7);
  });

  it('create is create-only: an existing object is AlreadyExists and is left untouched', async () => {
    await tenant.create(configMap('exists', { keep: 'me' }));
    const error = await reason(tenant.create(configMap('exists', { other: 'x' })));
    expect(error.reason).toBe(ClusterErrorReason.AlreadyExists);
    expect(error.status).toBe(409);
    expect(error.message).toContain('already exists');
    expect((await tenant.get(CM, NS, 'exists'))?.data).toEqual({ keep: 'me' });
  });

  it('an update with a stale resourceVersion is a Conflict', async () => {
    const first = await tenant.create(configMap('stale', { v: '1' }));
    await tenant.update({ ...first, data: { v: '2' } });
    const error = await reason(tenant.update({ ...first, data: { v: '3' } }));
    expect(error.reason).toBe(ClusterErrorReason.Conflict);
    expect(error.status).toBe(409);
    expect((await tenant.get(CM, NS, 'stale'))?.data).toEqual({ v: '2' });
  });

  it('an update without a resourceVersion is refused before any request', async () => {
    const before = tenant.requestCount();
    const error = await reason(tenant.update(configMap('no-rv')));
    expect(error.reason).toBe(ClusterErrorReason.Invalid);
    expect(tenant.requestCount()).toEqual(before);
  });

  it('a delete whose uid precondition does not match is a Conflict and deletes nothing', async () => {
    await tenant.create(configMap('uid-guard'));
    const error = await reason(
      tenant.delete(CM, NS, 'uid-guard', { uid: '00000000-0000-0000-0000-000000000000' }),
    );
    expect(error.reason).toBe(ClusterErrorReason.Conflict);
    expect(error.message).toMatch(/precondition/i);
    expect(await tenant.get(CM, NS, 'uid-guard')).toBeDefined();
  });

  it('NotFound: get returns undefined; delete and update throw NotFound', async () => {
    expect(await tenant.get(CM, NS, 'missing')).toBeUndefined();
    const del = await reason(tenant.delete(CM, NS, 'missing', { uid: 'x' }));
    expect(del.reason).toBe(ClusterErrorReason.NotFound);
    const upd = await reason(
      tenant.update({
        ...configMap('missing'),
        metadata: { ...configMap('missing').metadata, resourceVersion: '1' },
      }),
    );
    expect(upd.reason).toBe(ClusterErrorReason.NotFound);
    const kind = await reason(tenant.list({ apiVersion: 'v1', kind: 'NoSuchKind' }));
    expect(kind.reason).toBe(ClusterErrorReason.NotFound);
    expect(kind.message).toContain('NoSuchKind');
    const group = await reason(tenant.list({ apiVersion: 'nosuch.example.com/v1', kind: 'X' }));
    expect(group.reason).toBe(ClusterErrorReason.NotFound);
  });

  it('Invalid carries the server message naming the field', async () => {
    const error = await reason(
      tenant.create({ ...configMap('Not_A_Valid_Name'), data: { ok: 'x' } }),
    );
    expect(error.reason).toBe(ClusterErrorReason.Invalid);
    expect(error.status).toBe(422);
    expect(error.message).toContain('metadata.name');

    const badKey = await reason(tenant.create(configMap('bad-key', { 'not a key!': 'v' })));
    expect(badKey.reason).toBe(ClusterErrorReason.Invalid);
    expect(badKey.message).toContain('data[not a key!]');
  });

  it('syncs a CustomResource kind: CRD established, then CRUD on the new kind', async () => {
    const crdName = 'widgets.adapters.tenantplane.test';
    if (!(await tenant.get(CRD, undefined, crdName))) {
      await tenant.create({
        ...CRD,
        metadata: { name: crdName },
        spec: {
          group: 'adapters.tenantplane.test',
          scope: 'Namespaced',
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  },
                },
              },
            },
          ],
        },
      });
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      const crd = await tenant.get(CRD, undefined, crdName);
      const conditions = (crd?.status as { conditions?: { type: string; status: string }[] })
        ?.conditions;
      if (conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error('CRD not Established within 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Discovery may lag the Established condition a little: retry the first create.
    let created: KubeObject | undefined;
    for (let i = 0; i < 50 && !created; i++) {
      try {
        created = await tenant.create({
          ...WIDGET,
          metadata: { name: 'w1', namespace: NS },
          spec: { size: 3 },
        });
      } catch (error) {
        if (!(error instanceof ClusterError) || error.reason !== ClusterErrorReason.NotFound) {
          throw error;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(created?.spec).toEqual({ size: 3 });
    const page = await tenant.list(WIDGET, { namespace: NS });
    expect(page.items.map((w) => [w.kind, w.apiVersion, w.metadata.name])).toEqual([
      ['Widget', WIDGET.apiVersion, 'w1'],
    ]);
    const updated = await tenant.update({ ...created!, spec: { size: 4 } });
    expect(updated.spec).toEqual({ size: 4 });
    const invalid = await reason(tenant.update({ ...updated, spec: { size: 'big' } }));
    expect(invalid.reason).toBe(ClusterErrorReason.Invalid);
    expect(invalid.message).toContain('spec.size');
    await tenant.delete(WIDGET, NS, 'w1', { uid: created!.metadata.uid! });
    expect(await tenant.get(WIDGET, NS, 'w1')).toBeUndefined();
  });

  it('patches the status subresource of a TenantCluster on the host', async () => {
    const name = `adapters-client-tc-${RUN}`;
    if (!(await host.get(TENANT_CLUSTER, undefined, name))) {
      await host.create({
        ...TENANT_CLUSTER,
        metadata: { name },
        spec: { hostNamespace: 'adapters-client-host' },
      });
    }
    const patched = await host.patchStatus(TENANT_CLUSTER, undefined, name, {
      lastPass: {
        passId: 'p-1',
        complete: true,
        counts: { create: 2, update: 0, delete: 0, skip: 1 },
      },
    });
    expect((patched.status as { lastPass: { passId: string } }).lastPass.passId).toBe('p-1');
    // Merge patch: a second patch of one field keeps the others.
    await host.patchStatus(TENANT_CLUSTER, undefined, name, { lastPass: { passId: 'p-2' } });
    const got = await host.get(TENANT_CLUSTER, undefined, name);
    expect(got?.status).toEqual({
      lastPass: {
        passId: 'p-2',
        complete: true,
        counts: { create: 2, update: 0, delete: 0, skip: 1 },
      },
    });
    // The status subresource ignores spec changes.
    expect((got!.spec as { hostNamespace: string }).hostNamespace).toBe('adapters-client-host');
  });

  it('counts requests, split into reads and writes', async () => {
    const api = createClusterApi(clusters.tenant);
    try {
      expect(api.requestCount()).toEqual({ reads: 0, writes: 0 });
      await api.get(CM, NS, 'missing'); // discovery of v1 + GET
      expect(api.requestCount()).toEqual({ reads: 2, writes: 0 });
      await api.list(CM, { namespace: NS, limit: 2 }); // discovery is cached
      expect(api.requestCount()).toEqual({ reads: 3, writes: 0 });
      const cm = await api.create(configMap('counted'));
      await api.delete(CM, NS, 'counted', { uid: cm.metadata.uid! });
      expect(api.requestCount()).toEqual({ reads: 3, writes: 2 });
      await reason(api.create(configMap('exists'))); // failed writes are requests too
      expect(api.requestCount()).toEqual({ reads: 3, writes: 3 });
    } finally {
      await api.close();
    }
  });

  it('selects a kubeconfig context by name', async () => {
    const doc = parse(clusters.tenant.text) as {
      contexts: { name: string; context: Record<string, string> }[];
      'current-context': string;
    };
    const ctx = doc.contexts[0]!;
    doc.contexts.push({ name: 'broken', context: { cluster: 'nowhere', user: ctx.context.user! } });
    doc['current-context'] = 'broken';
    const text = stringify(doc);
    const api = createClusterApi({ text, origin: 'two-contexts' }, { context: ctx.name });
    try {
      expect(api.context).toBe(ctx.name);
      expect(await api.get(NAMESPACE, undefined, NS)).toBeDefined();
    } finally {
      await api.close();
    }
    expect(() => createClusterApi({ text, origin: 'two-contexts' })).toThrow(
      /kubeconfig two-contexts: context "broken" names cluster "nowhere", which is not defined/,
    );
  });

  it('an unreachable server is a Transport error naming the server and the cause', async () => {
    const { createServer } = await import('node:net');
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));

    for (const [server, detail] of [
      [`https://127.0.0.1:${port}`, /^ECONNREFUSED$/],
      // fetch refuses port 1 outright (a "bad port" of the Fetch standard).
      ['https://127.0.0.1:1', /^bad port$/],
      ['https://no-such-host.invalid:6443', /^(ENOTFOUND|EAI_AGAIN)$/],
    ] as const) {
      const doc = parse(clusters.tenant.text) as { clusters: { cluster: { server: string } }[] };
      doc.clusters[0]!.cluster.server = server;
      const api = createClusterApi({ text: stringify(doc), origin: 'unreachable' });
      try {
        const error = await reason(api.list(CM));
        expect(error.reason).toBe(ClusterErrorReason.Transport);
        expect(error.message.startsWith(`cannot reach ${server}: `)).toBe(true);
        expect(error.message.slice(`cannot reach ${server}: `.length)).toMatch(detail);
        expect(api.requestCount().reads).toBe(1);
      } finally {
        await api.close();
      }
    }
  });

  it('a server whose certificate the kubeconfig does not trust is a Transport (TLS) error', async () => {
    const tenantDoc = parse(clusters.tenant.text) as {
      clusters: { cluster: Record<string, string> }[];
    };
    const hostDoc = parse(clusters.host.text) as {
      clusters: { cluster: Record<string, string> }[];
    };
    // The tenant's credentials and server, with a CA that did not sign the server's certificate.
    const wrongCa = 'certificate-authority-data';
    const sameCa =
      tenantDoc.clusters[0]!.cluster[wrongCa] === hostDoc.clusters[0]!.cluster[wrongCa];
    if (sameCa) {
      // One CA for both clusters: use an unrelated one instead.
      delete tenantDoc.clusters[0]!.cluster[wrongCa];
    } else {
      tenantDoc.clusters[0]!.cluster[wrongCa] = hostDoc.clusters[0]!.cluster[wrongCa]!;
    }
    const api = createClusterApi({ text: stringify(tenantDoc), origin: 'wrong-ca' });
    try {
      const error = await reason(api.list(CM));
      expect(error.reason).toBe(ClusterErrorReason.Transport);
      expect(error.message).toMatch(/^cannot reach https:\/\/127\.0\.0\.1:\d+: [A-Z_]+ \(.+\)$/);
    } finally {
      await api.close();
    }
  });

  it('a request that gets no answer times out as a Transport error', async () => {
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const server = createServer((socket) => sockets.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const doc = parse(clusters.tenant.text) as { clusters: { cluster: { server: string } }[] };
    doc.clusters[0]!.cluster.server = `https://127.0.0.1:${port}`;
    const api = createClusterApi(
      { text: stringify(doc), origin: 'silent' },
      { requestTimeoutMs: 300 },
    );
    try {
      const t0 = Date.now();
      const error = await reason(api.list(CM));
      expect(Date.now() - t0).toBeLessThan(5_000);
      expect(error.reason).toBe(ClusterErrorReason.Transport);
      expect(error.message).toBe(
        `cannot reach https://127.0.0.1:${port}: timed out after 300 ms (ETIMEDOUT)`,
      );
    } finally {
      await api.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
