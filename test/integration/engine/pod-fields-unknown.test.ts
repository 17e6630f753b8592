/**
 * Issue 40, point 3, on the real clusters: a field the apiserver serves and the engine does not
 * know (here `spec.hostnameOverride`, taken out of the engine's table for this file, as a field a
 * later Kubernetes adds would be missing from it) makes the Pod a Skip naming the field, with
 * nothing written to the host, pass after pass; once the policy allows the field by path
 * (`spec.workloads.pods.allowFields`), the Pod is created with the field as the tenant wrote it.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { snapshot } from '../faults/support.js';
import {
  allowField,
  FIELD,
  NOTHING,
  POD,
  tenantWithPod,
  useFieldRow,
} from './pod-fields-unknown-support.js';
import { decisionLines, diffSnapshots, pass, useApis } from './support.js';

const apis = useApis();
const { row, forget } = useFieldRow();
beforeAll(forget);

describe('a Pod field the engine does not know', () => {
  it('is a Skip naming it, nothing written, until the policy allows its path; then it is copied as written', async () => {
    expect(row).toBeDefined();
    const { t, h } = await tenantWithPod(apis(), 'pf-unknown');

    const before = await snapshot(t.hostNamespace);
    for (const n of [1, 2]) {
      const refused = await pass(t, { full: true });
      expect({ n, errors: refused.result.errors }).toEqual({ n, errors: [] });
      const skip = refused.result.decisions.find((d) => d.tenantRef.name === 'web');
      expect(skip?.action).toBe('Skip');
      expect(skip?.reason).toContain(
        'the Pod sets spec.hostnameOverride, a field this engine does not know',
      );
      expect(skip?.reason).toContain('spec.workloads.pods.allowFields: spec.hostnameOverride');
      expect(refused.result.requests.host.writes).toBe(0);
    }
    expect(await t.hostApi.get(POD, t.hostNamespace, h)).toBeUndefined();
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);

    await allowField(t);
    const allowed = await pass(t, { full: true });
    expect(allowed.result.errors).toEqual([]);
    expect(decisionLines(allowed.result).filter((line) => line.includes('/web '))).toEqual([
      expect.stringMatching(/^Create /),
    ]);
    const host = await t.hostApi.get(POD, t.hostNamespace, h);
    expect((host?.spec as Record<string, unknown> | undefined)?.[FIELD]).toBe(
      'web.example.internal',
    );
  });
});
