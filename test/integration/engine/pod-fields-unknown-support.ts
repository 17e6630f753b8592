/**
 * The scenario of the unknown Pod field tests (pod-fields-unknown*.test.ts): the field
 * `spec.hostnameOverride`, whose row the tests take out of the engine's own PodSpec table (as a
 * field a later Kubernetes adds would be missing from it), a tenant's Pod `web` that sets it, and
 * the operator allowing it by path.
 */
import { afterAll } from '@jest/globals';
import { hostName } from '../../../lib/engine/index.js';
import type { FieldRow } from '../../../lib/engine/kinds/pod/fields/field-table.js';
import { POD_SPEC_FIELDS } from '../../../lib/engine/kinds/pod/fields/pod-spec-fields.js';
import type { KindRef } from '../../../lib/ports/index.js';
import {
  type Apis,
  createTenant,
  type Tenant,
  tenantClusterObject,
  tenantObject,
} from './support.js';

export const POD: KindRef = { apiVersion: 'v1', kind: 'Pod' };
export const FIELD = 'hostnameOverride';
export const NOTHING = { created: [], changed: [], deleted: [] };

/**
 * The field's row in the engine's table: the table is the engine's own object (the same module
 * the pass runs), so without the row the field is one the engine does not know. `forget` takes
 * the row out; it is put back after the file.
 */
export function useFieldRow(): { row: FieldRow | undefined; forget: () => void } {
  const table = POD_SPEC_FIELDS as Record<string, FieldRow>;
  const row = table[FIELD];
  afterAll(() => {
    if (row) table[FIELD] = row;
  });
  return {
    row,
    forget: () => {
      delete table[FIELD];
    },
  };
}

/** A fresh tenant syncing Pods, with Pod `web` setting the field in its first namespace. */
export async function tenantWithPod(
  apis: Apis,
  base: string,
): Promise<{ t: Tenant; ns: string; h: string }> {
  const t = await createTenant(apis, base, { toHost: [POD] });
  const ns = t.vns.a;
  const spec = {
    automountServiceAccountToken: false,
    hostnameOverride: 'web.example.internal',
    containers: [{ name: 'web', image: 'nginx:1' }],
  };
  await t.tenantApi.create(tenantObject(t, POD, ns, 'web', { spec }));
  return { t, ns, h: hostName('web', ns, t.name) };
}

/** The operator allows the field by path (`spec.workloads.pods.allowFields`). */
export async function allowField(t: Tenant): Promise<void> {
  const tc = await tenantClusterObject(t);
  await t.hostApi.update({
    ...tc,
    spec: {
      ...(tc.spec as Record<string, unknown>),
      workloads: { pods: { allowFields: ['spec.hostnameOverride'] } },
    },
  });
}
