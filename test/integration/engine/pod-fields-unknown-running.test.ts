/**
 * Issue 40, point 3, on the real clusters: a running Pod whose field becomes one the engine does
 * not know (a newer tenant apiserver that defaults a new field on every Pod would do this to every
 * workload at once) keeps its host copy as it was. Here the Pod runs with `spec.hostnameOverride`
 * copied; then the field's row is taken out of the engine's table (the engine no longer knows it):
 * two passes write nothing to the host namespace (uid@resourceVersion of every object in it
 * unchanged), each with a Skip that says the copy is kept. Once the policy allows the field, the
 * Pod converges with no write to its copy, which already had the field.
 */
import { describe, expect, it } from '@jest/globals';
import { snapshot } from '../faults/support.js';
import {
  allowField,
  FIELD,
  NOTHING,
  POD,
  tenantWithPod,
  useFieldRow,
} from './pod-fields-unknown-support.js';
import { decisionLines, diffSnapshots, pass, useApis, waitFor } from './support.js';

const apis = useApis();
const { row, forget } = useFieldRow();

describe('a running Pod whose field the engine stops knowing', () => {
  it('keeps its host copy as it was, pass after pass, a Skip saying so; allowed, it converges with no write', async () => {
    expect(row).toBeDefined();
    const { t, h } = await tenantWithPod(apis(), 'pf-kept');

    // Known: copied, running, and settled (a pass that writes nothing to the host).
    const made = await pass(t);
    expect(made.result.errors).toEqual([]);
    await waitFor('the host Pod Running', async () => {
      const p = await t.hostApi.get(POD, t.hostNamespace, h);
      return (p?.status as { phase?: string } | undefined)?.phase === 'Running' ? p : undefined;
    });
    await waitFor('a pass that writes nothing to the host', async () => {
      const settled = await pass(t, { full: true });
      expect(settled.result.errors).toEqual([]);
      return settled.result.requests.host.writes === 0 ? true : undefined;
    });
    const running = await t.hostApi.get(POD, t.hostNamespace, h);
    expect((running?.spec as Record<string, unknown> | undefined)?.[FIELD]).toBe(
      'web.example.internal',
    );
    const version = `${running?.metadata.uid}@${running?.metadata.resourceVersion}`;

    // The engine no longer knows the field: the running Pod's copy is kept, nothing written.
    forget();
    const before = await snapshot(t.hostNamespace);
    expect(before.get(`Pod/${h}`)).toBe(version);
    for (const n of [1, 2]) {
      const kept = await pass(t, { full: true });
      expect({ n, errors: kept.result.errors }).toEqual({ n, errors: [] });
      expect({ n, writes: kept.result.requests.host.writes }).toEqual({ n, writes: 0 });
      expect(decisionLines(kept.result).filter((line) => line.includes('/web '))).toEqual([
        expect.stringMatching(/^Skip /),
      ]);
      const skip = kept.result.decisions.find((d) => d.tenantRef.name === 'web');
      expect(skip?.reason).toBe(
        'the Pod sets spec.hostnameOverride, a field this engine does not know (a later Kubernetes added it), so nobody decided what it would do on the host; kept: the host copy keeps running as it was (neither updated nor deleted); nothing is written until the engine knows the field or the policy allows it; upgrade the engine, or have the operator allow it to be copied as it is (spec.workloads.pods.allowFields: spec.hostnameOverride)',
      );
    }
    const after = await snapshot(t.hostNamespace);
    expect(diffSnapshots(before, after)).toEqual(NOTHING);
    expect(after.get(`Pod/${h}`)).toBe(version);

    // The operator allows the field: the Pod converges; its copy had the field all along.
    await allowField(t);
    const allowed = await pass(t, { full: true });
    expect(allowed.result.errors).toEqual([]);
    expect(decisionLines(allowed.result).filter((line) => line.includes('/web '))).toEqual([]);
    expect(allowed.result.requests.host.writes).toBe(0);
    expect(diffSnapshots(before, await snapshot(t.hostNamespace))).toEqual(NOTHING);
  });
});
