/**
 * Policy edits on the real clusters, each in a host namespace shared with a second tenant and an
 * unmanaged object, proven from uid@resourceVersion snapshots of that namespace: an exclusion
 * that would delete most of a kind's copies at once (the old README example
 * `labelSelector: "sync!=off"`) is held by the mass-delete guard until a one-shot confirmation,
 * and a plan lists what it would delete; one resource under two versions is an invalid policy.
 */
import { describe, expect, it } from '@jest/globals';
import { InvalidPolicyError } from '../../../lib/engine/index.js';
import { TenantClusterKeys } from '../../../lib/engine/names/metadata.js';
import { lifecycleScenes } from './lifecycle-support.js';
import { CONFIGMAP, LABEL, pass, RUN, SECRET, tenantObject, useApis } from './support.js';

const apis = useApis();
const { scene, snapshot, changes, copiesOf, patchSpec, annotate } = lifecycleScenes(apis);

/** A label key only this suite's objects carry, so the selectors below see nobody else's. */
const SYNC = `sync-${RUN}`;

describe('policy edits on the real clusters', () => {
  it('an exclusion that would delete most copies is held for a confirmation; the plan lists them', async () => {
    const { t, other } = await scene('pedit');
    // 24 copies in all (scene's a and b, and 22 more), one of them labelled <sync>=off.
    for (let i = 0; i < 22; i++) {
      const labels = i === 0 ? { [LABEL]: t.name, [SYNC]: 'off' } : { [LABEL]: t.name };
      await t.tenantApi.create(
        tenantObject(t, CONFIGMAP, t.vns.a, `c${i}`, { data: { i: String(i) } }, { labels }),
      );
    }
    expect((await pass(t)).result.complete).toBe(true);
    expect(copiesOf(await snapshot(t), t)).toHaveLength(24);
    const before = await snapshot(t);

    // The README's old example: meant "leave out what is labelled off", it excludes the rest.
    await patchSpec(t, {
      toHost: [
        { ...CONFIGMAP, exclude: { labelSelector: `${SYNC}!=off` } },
        { ...SECRET, exclude: { labelSelector: `${LABEL}!=${t.name}` } },
      ],
    });

    const plan = (await pass(t, { dryRun: true })).result;
    const held = (await pass(t)).result;
    for (const result of [plan, held]) {
      expect(result.complete).toBe(false);
      expect(result.decisions.filter((d) => d.action === 'Delete')).toEqual([]);
      const skips = result.decisions.filter((d) => d.action === 'Skip');
      expect(skips).toHaveLength(23);
      for (const skip of skips)
        expect(skip.reason).toMatch(
          /is excluded from syncing by the sync policy; not deleted: the mass-delete guard holds the 23 ConfigMap deletions of this pass \(more than 50% of 24 copies\) until they are confirmed with tenantplane\.io\/confirm-deletes=ConfigMap:[0-9a-f]+$/,
        );
      expect(skips.map((d) => d.tenantRef.name)).not.toContain('c0');
      expect(result.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard']);
      expect(result.incompleteReason).toContain(
        `would delete 23 of the 24 ConfigMap copies of tenant cluster "${t.name}" that the sync policy now excludes (more than 50%), so it deleted none of them; \`tenantplane plan ${t.name}\` lists them`,
      );
    }
    // The plan and the pass name the same set; nothing in the host namespace changed.
    expect(plan.decisions.map((d) => d.reason).sort()).toEqual(
      held.decisions.map((d) => d.reason).sort(),
    );
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });

    const token = /confirm-deletes=(ConfigMap:[0-9a-f]+)/.exec(held.incompleteReason ?? '')?.[1];
    await annotate(t, TenantClusterKeys.ConfirmDeletes, token as string);
    const done = (await pass(t)).result;
    expect(done.complete).toBe(true);
    expect(done.decisions.filter((d) => d.action === 'Delete')).toHaveLength(23);
    const after = await snapshot(t);
    const { deleted, created, written } = changes(before, after);
    expect(created).toEqual([]);
    expect(written).toEqual([]);
    expect(deleted).toHaveLength(23);
    for (const key of deleted) expect(key).toMatch(new RegExp(`^ConfigMap/.*-x-${t.name}$`));
    expect(copiesOf(after, t)).toEqual([`ConfigMap/c0-x-${t.vns.a}-x-${t.name}`]);
    expect(copiesOf(after, other)).toHaveLength(1);
    expect([...after.keys()].some((k) => k.startsWith('ConfigMap/unmanaged-'))).toBe(true);
  });

  it('an exclusion within the guard’s share deletes at once', async () => {
    const { t } = await scene('pedit2');
    const before = await snapshot(t);
    await patchSpec(t, {
      toHost: [
        { ...CONFIGMAP, exclude: { labelSelector: `${LABEL}!=${t.name}`, names: ['a'] } },
        { ...SECRET, exclude: { labelSelector: `${LABEL}!=${t.name}` } },
      ],
    });
    const { result } = await pass(t);
    expect(result.complete).toBe(true);
    expect(result.decisions.map((d) => `${d.action} ${d.kind} ${d.tenantRef.name}`)).toEqual([
      'Delete ConfigMap a',
    ]);
    expect(changes(before, await snapshot(t)).deleted).toEqual([
      `ConfigMap/a-x-${t.vns.a}-x-${t.name}`,
    ]);
  });

  it('autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscaler as two rules: invalid, nothing written', async () => {
    const { t } = await scene('twover');
    const before = await snapshot(t);
    await patchSpec(t, {
      toHost: [
        { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' },
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          exclude: { names: ['web'] },
        },
      ],
    });
    const error = await pass(t).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect((error as InvalidPolicyError).problems).toEqual([
      'spec.toHost[1] repeats HorizontalPodAutoscaler (autoscaling/v2) of spec.toHost[0] (autoscaling/v1): one rule per API group and kind, whatever the version',
    ]);
    expect(changes(before, await snapshot(t))).toEqual({ deleted: [], created: [], written: [] });
  });
});
