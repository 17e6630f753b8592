/**
 * Valid tenant objects that the engine itself could not handle, on the real clusters: a custom
 * resource nested 3,500 levels deep (the apiserver accepts 10,000) threw `Maximum call stack size
 * exceeded` out of a budgeted pass, so later kinds never synced; thousands of long label keys
 * pushed the engine's own `owned-keys` annotation past the host's 256 KiB limit, so the copy was
 * refused for good. Each is now one object's outcome, and the host namespace changes only where
 * it should (uid/resourceVersion snapshots before and after).
 */
import { describe, expect, it } from '@jest/globals';
import { hostName, runPass } from '../../../lib/engine/index.js';
import { Annotations } from '../../../lib/engine/names/metadata.js';
import type { KindRef } from '../../../lib/ports/index.js';
import { snapshot } from '../faults/support.js';
import {
  type Apis,
  admissionPolicy,
  CONFIGMAP,
  CRD,
  createTenant,
  diffSnapshots,
  pass,
  RUN,
  tenantConfigMap,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();

const GROUP = `h${RUN}.engine.tenantplane.test`;
const BLOB: KindRef = { apiVersion: `${GROUP}/v1`, kind: 'Blob' };

/** A namespaced kind whose spec keeps anything, as many real CRDs do. */
async function installBlobs(api: Apis['hostApi']): Promise<void> {
  if (!(await api.get(CRD, undefined, `blobs.${GROUP}`))) {
    await api.create({
      ...CRD,
      metadata: { name: `blobs.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    });
  }
  await waitFor(`kind ${BLOB.kind} served`, async () => {
    await api.list(BLOB, { limit: 1 });
    return true;
  });
}

/** `{"a":{"a":...}}`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  return JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`) as Record<string, unknown>;
}

describe('objects the engine must not trip over', () => {
  it('a custom resource nested 3,500 levels deep is that object’s error; its siblings and later kinds sync under a budget', async () => {
    await installBlobs(apis().tenantApi);
    await installBlobs(apis().hostApi);
    const t = await createTenant(apis(), 'deep', { toHost: [BLOB, CONFIGMAP] });
    await t.tenantApi.create(tenantObject(t, BLOB, t.vns.a, 'deep', { spec: nested(3_500) }));
    await t.tenantApi.create(tenantObject(t, BLOB, t.vns.a, 'flat', { spec: { size: 1 } }));
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'cfg'));
    const before = await snapshot(t.hostNamespace);

    const { result } = await pass(t, { budget: { maxWrites: 10 } });

    expect(result.errors).toEqual([
      expect.objectContaining({
        kind: 'Blob',
        tenantRef: { namespace: t.vns.a, name: 'deep' },
        message: expect.stringContaining('more than 1000 levels deep'),
      }),
    ]);
    const changes = diffSnapshots(before, await snapshot(t.hostNamespace));
    expect(changes).toEqual({
      created: [
        `Blob/${hostName('flat', t.vns.a, t.name)}`,
        `ConfigMap/${hostName('cfg', t.vns.a, t.name)}`,
      ].sort(),
      changed: [],
      deleted: [],
    });
    // The next pass is steady: the deep object stays an error, nothing is written.
    const settled = await snapshot(t.hostNamespace);
    const again = await pass(t, { budget: { maxWrites: 10 } });
    expect(again.result.errors).toHaveLength(1);
    expect(again.result.requests.host.writes).toBe(0);
    expect(diffSnapshots(settled, await snapshot(t.hostNamespace))).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });

  it('4,200 long label keys: the copy is created, its annotations under the host’s 256 KiB limit', async () => {
    const t = await createTenant(apis(), 'keys');
    const labels = Object.fromEntries(
      Array.from({ length: 4_200 }, (_, i) => [
        `team-${String(i).padStart(5, '0')}.example.com/${'k'.repeat(30)}`,
        'v',
      ]),
    );
    await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'many', { k: 'v' }, { labels }));
    const before = await snapshot(t.hostNamespace);
    const { result } = await pass(t);
    expect(result.errors).toEqual([]);
    const name = hostName('many', t.vns.a, t.name);
    expect(diffSnapshots(before, await snapshot(t.hostNamespace)).created).toEqual([
      `ConfigMap/${name}`,
    ]);
    const copy = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
    expect(Object.keys(copy?.metadata.labels ?? {})).toHaveLength(4_200 + 5);
    expect(JSON.parse(copy?.metadata.annotations?.[Annotations.OwnedKeys] ?? '{}')).toEqual({
      labels: '*',
      annotations: [],
    });
    // Converged: the next pass writes nothing.
    const steady = await pass(t);
    expect(steady.result.requests.host.writes).toBe(0);
  });

  // Thirty passes on a five-minute clock, each resumed or full: minutes on a loaded CI machine.
  it('objects the host keeps refusing, listed first, do not take the share of those after them', async () => {
    const t = await createTenant(apis(), 'share');
    const admission = await admissionPolicy(t, {
      name: `refuse-${t.name}`,
      operations: ['CREATE'],
      resources: ['configmaps'],
      validation: {
        expression: "!has(object.data) || !('refused' in object.data)",
        message: 'refused by the host',
        reason: 'Forbidden',
      },
      probeData: { refused: 'yes' },
      denial: 'refused by the host',
    });
    try {
      for (let i = 0; i < 24; i++) {
        const name = `a-bad-${String(i).padStart(2, '0')}`;
        await t.tenantApi.create(tenantConfigMap(t, t.vns.a, name, { refused: 'yes' }));
      }
      for (const name of ['z-ok-1', 'z-ok-2', 'z-ok-3'])
        await t.tenantApi.create(tenantConfigMap(t, t.vns.a, name));
      const before = await snapshot(t.hostNamespace);
      // A 5-minute schedule, without waiting for it.
      const now = { t: Date.now() };
      const clock = { now: () => now.t };
      for (let i = 0; i < 30; i++) {
        const run = { tenant: t.name, tenantApi: t.tenantApi, hostApi: t.hostApi, clock };
        const result = await runPass({ ...run, budget: { maxWrites: 2 }, lease: false });
        expect(result.requests.host.writes).toBeLessThanOrEqual(2);
        now.t += 5 * 60_000;
      }
      const changes = diffSnapshots(before, await snapshot(t.hostNamespace));
      expect(changes).toEqual({
        created: ['z-ok-1', 'z-ok-2', 'z-ok-3'].map(
          (n) => `ConfigMap/${hostName(n, t.vns.a, t.name)}`,
        ),
        changed: [],
        deleted: [],
      });
    } finally {
      for (const object of admission.reverse()) {
        await t.hostApi.delete(object, undefined, object.metadata.name, {
          uid: object.metadata.uid as string,
        });
      }
    }
  }, 300_000);
});
