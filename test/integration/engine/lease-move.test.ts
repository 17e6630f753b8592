/**
 * One lease per tenant whatever the namespace, on the real tenant + host apiservers: a long pass
 * (many creates at concurrency 1) writes into the old host namespace while the operator moves the
 * tenant and a second pass starts. The Lease lives in the first remembered host namespace, so the
 * second pass contends for the same Lease, finds it held and writes nothing in the new namespace
 * (snapshot); nor does it forget the old one. Afterwards the passes converge and no copy is left
 * in a namespace no pass remembers.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../lib/engine/index.js';
import { LEASE, leaseName } from '../../../lib/engine/tenant/tenant-lease.js';
import type { PassResult } from '../../../lib/ports/index.js';
import { lifecycleScenes } from './lifecycle-support.js';
import {
  CONFIGMAP,
  createTenant,
  ensureNamespace,
  listAll,
  type Tenant,
  tenantObject,
  useApis,
  waitFor,
} from './support.js';

const apis = useApis();
const { snapshot, changes, copiesOf, patchSpec, status } = lifecycleScenes(apis);
const OBJECTS = 400;

/** A pass as the scheduled function runs it: with the lease, no deadline. */
function leasedPass(t: Tenant): Promise<PassResult> {
  return runPass({
    tenant: t.name,
    tenantApi: t.tenantApi,
    hostApi: t.hostApi,
    budget: { concurrency: 1 },
    lease: true,
  });
}

async function moveTo(t: Tenant, hostNamespace: string): Promise<void> {
  // The running pass may write the status meanwhile: a Conflict is retried with a fresh read.
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await patchSpec(t, { hostNamespace });
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

describe('the lease across a host namespace move on the real clusters', () => {
  it('a pass that reads the new namespace finds the lease held and writes nothing there', async () => {
    const t = await createTenant(apis(), 'lmove');
    const next = `${t.hostNamespace}-new`;
    await ensureNamespace(t.hostApi, next);
    for (let i = 0; i < OBJECTS; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, OBJECTS - i) }, (_, j) =>
          t.tenantApi.create(
            tenantObject(t, CONFIGMAP, t.vns.a, `c${i + j}`, { data: { k: `${i + j}` } }),
          ),
        ),
      );
    }

    const first = leasedPass(t);
    // Pass A is under way in the old namespace (it holds the Lease there).
    await waitFor('pass A to have written copies', async () => {
      const copies = await listAll(t.hostApi, CONFIGMAP, t.hostNamespace);
      return copies.length >= 10 ? copies.length : undefined;
    });
    await moveTo(t, next);
    const beforeNew = await snapshot(t, next);
    const second = await leasedPass(t);
    const afterNew = await snapshot(t, next);

    expect(second.leaseHeld?.lease).toBe(`${t.hostNamespace}/${leaseName(t.name)}`);
    expect(second.counts).toMatchObject({ Create: 0, Update: 0, Delete: 0 });
    expect(changes(beforeNew, afterNew)).toEqual({ deleted: [], created: [], written: [] });
    expect(await listAll(t.hostApi, LEASE, next)).toEqual([]);
    // The old namespace, where pass A still writes, is still remembered.
    expect((await status(t)).hostNamespaces).toContain(t.hostNamespace);

    const a = await first;
    expect(a.errors).toEqual([]);
    expect(a.leaseHeld).toBeUndefined();

    // Afterwards the passes converge: every copy in the new namespace, none in the old one, which
    // is forgotten only now that it was listed clean.
    for (let i = 0; i < 4; i += 1) {
      const result = await leasedPass(t);
      expect(result.leaseHeld).toBeUndefined();
      expect(result.errors).toEqual([]);
    }
    expect(copiesOf(await snapshot(t), t)).toEqual([]);
    expect(copiesOf(await snapshot(t, next), t)).toHaveLength(OBJECTS);
    expect((await status(t)).hostNamespaces).toEqual([next]);
    expect(await listAll(t.hostApi, LEASE, t.hostNamespace)).toEqual([]);
    expect(await listAll(t.hostApi, LEASE, next)).toEqual([]);
  }, 300_000);
});
