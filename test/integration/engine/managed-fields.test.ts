/**
 * The pass keeps listed host objects without `metadata.managedFields` (memory), and its update
 * bodies never carried them. On the real apiserver, a PUT without managedFields keeps the
 * server's record: the other managers' entries survive an engine update, and the engine's own
 * entry is kept up to date.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createClusterApi,
  type KubeClusterApi,
} from '../../../lib/adapters/kube/cluster-client.js';
import { hostName } from '../../../lib/engine/index.js';
import {
  CONFIGMAP,
  clusters,
  createTenant,
  pass,
  type Tenant,
  tenantConfigMap,
  useApis,
} from './support.js';

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  fieldsV1?: Record<string, unknown>;
}

const apis = useApis();
let t: Tenant;
let hostController: KubeClusterApi;

beforeAll(async () => {
  t = await createTenant(apis(), 'mfields');
  hostController = createClusterApi(clusters.host, { fieldManager: 'host-controller' });
  await t.tenantApi.create(tenantConfigMap(t, t.vns.a, 'app', { color: 'blue' }));
});

afterAll(async () => {
  await hostController?.close();
});

function managers(object: { metadata: Record<string, unknown> } | undefined): string[] {
  const entries = (object?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  return entries.map((e) => `${e.manager}/${e.operation}`).sort();
}

describe('managedFields across an engine update', () => {
  it('an update without managedFields keeps the server record of every manager', async () => {
    const name = hostName('app', t.vns.a, t.name);
    const first = await pass(t);
    expect(first.result.counts.Create).toBe(1);

    // A host controller adds a label of its own, recorded under its own manager.
    const created = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
    if (!created) throw new Error('the host copy was not created');
    expect(managers(created)).toEqual(['tenantplane/Update']);
    await hostController.update({
      ...created,
      metadata: {
        ...created.metadata,
        labels: { ...created.metadata.labels, 'host.example/zone': 'a' },
      },
    });

    // The tenant changes its data: the engine updates the host copy with a PUT.
    const source = await t.tenantApi.get(CONFIGMAP, t.vns.a, 'app');
    if (!source) throw new Error('the tenant object is gone');
    await t.tenantApi.update({ ...source, data: { color: 'green' } });
    const second = await pass(t);
    expect(second.result.errors).toEqual([]);
    expect(second.result.counts).toEqual({ Create: 0, Update: 1, Delete: 0, Skip: 0 });

    const updated = await t.hostApi.get(CONFIGMAP, t.hostNamespace, name);
    expect(updated?.data).toEqual({ color: 'green' });
    expect(updated?.metadata.labels?.['host.example/zone']).toBe('a');
    expect(managers(updated)).toEqual(['host-controller/Update', 'tenantplane/Update']);
    const entries = (updated?.metadata.managedFields ?? []) as ManagedFieldsEntry[];
    const host = entries.find((e) => e.manager === 'host-controller');
    expect(JSON.stringify(host?.fieldsV1)).toContain('f:host.example/zone');
    const engine = entries.find((e) => e.manager === 'tenantplane');
    expect(JSON.stringify(engine?.fieldsV1)).toContain('f:color');

    // And the next pass is steady: nothing to write.
    const third = await pass(t);
    expect(third.result.counts).toEqual({ Create: 0, Update: 0, Delete: 0, Skip: 0 });
    expect(third.result.requests.host.writes).toBe(0);
  });
});
