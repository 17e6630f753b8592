/**
 * The mass-delete guard: a confirmation token names exactly one set of deletions; above the
 * threshold every deletion of the kind is held, vanished and excluded sources alike (a policy edit
 * can delete as much as a wiped tenant), and only a confirmation of that very set lets them go.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { GcCandidate } from '../../../../lib/engine/gc/candidates.js';
import {
  confirmationToken,
  guardDeletes,
  resumableDeletes,
  resumedPassFallback,
} from '../../../../lib/engine/gc/delete-guard.js';
import { TenantClusterKeys } from '../../../../lib/engine/names/metadata.js';
import { runPass } from '../../../../lib/engine/pass/pass.js';
import type { DeleteGuardPolicy } from '../../../../lib/engine/policy/policy.js';
import { confirmedTokens } from '../../../../lib/engine/tenant/tenant-cluster.js';
import { CONFIGMAP, clusters, cm, HOST_NS, TENANT } from '../support.js';

const candidate = (name: string, vanished = true, uid = `uid-${name}`): GcCandidate => ({
  object: { ...CONFIGMAP, metadata: { namespace: HOST_NS, name, uid } },
  ref: { tenant: TENANT, kind: 'ConfigMap', virtualNamespace: 'default', virtualName: name },
  reason: vanished ? `tenant ConfigMap default/${name} no longer exists` : 'excluded',
  vanished,
});

const many = (count: number, prefix = 'c', vanished = true): GcCandidate[] =>
  Array.from({ length: count }, (_, i) => candidate(`${prefix}${i}`, vanished));

const names = (list: readonly GcCandidate[]) => list.map((c) => c.object.metadata.name).sort();

const GUARD: DeleteGuardPolicy = { maxPercent: 50, minCopies: 20 };

describe('confirmationToken', () => {
  it('is stable for the same set, whatever the order', () => {
    const set = [candidate('a'), candidate('b'), candidate('c')];
    expect(confirmationToken(set)).toBe(confirmationToken([...set].reverse()));
    expect(confirmationToken(set)).toMatch(/^[0-9a-f]{10}$/);
  });

  it('differs for another set', () => {
    const abc = confirmationToken([candidate('a'), candidate('b'), candidate('c')]);
    expect(confirmationToken([candidate('a'), candidate('b')])).not.toBe(abc);
    expect(confirmationToken([candidate('a'), candidate('b'), candidate('d')])).not.toBe(abc);
    // Same names, other objects (uids): another set.
    expect(confirmationToken([candidate('a', true, 'x'), candidate('b'), candidate('c')])).not.toBe(
      abc,
    );
  });
});

describe('confirmedTokens', () => {
  const cases: Array<{
    name: string;
    annotations: Record<string, string> | undefined;
    expected: string[];
  }> = [
    { name: 'no annotations', annotations: undefined, expected: [] },
    { name: 'annotation missing', annotations: { other: 'x' }, expected: [] },
    {
      name: 'empty annotation',
      annotations: { [TenantClusterKeys.ConfirmDeletes]: '' },
      expected: [],
    },
    {
      name: 'one entry',
      annotations: { [TenantClusterKeys.ConfirmDeletes]: 'ConfigMap:abc' },
      expected: ['ConfigMap:abc'],
    },
    {
      name: 'several, spaces and empty entries dropped',
      annotations: { [TenantClusterKeys.ConfirmDeletes]: ' ConfigMap:abc , ,Secret:def,' },
      expected: ['ConfigMap:abc', 'Secret:def'],
    },
  ];
  it.each(cases)('$name', ({ annotations, expected }) => {
    expect([...confirmedTokens(annotations)].sort()).toEqual(expected);
  });
});

describe('guardDeletes', () => {
  const cases: Array<{
    name: string;
    candidates: GcCandidate[];
    managed: number;
    guard?: DeleteGuardPolicy;
    expectedAllowed: number;
    expectedHeld?: number;
  }> = [
    {
      name: 'below minCopies never holds, even when every copy vanished',
      candidates: many(19),
      managed: 19,
      expectedAllowed: 19,
    },
    {
      name: 'exactly maxPercent is not held',
      candidates: many(10),
      managed: 20,
      expectedAllowed: 10,
    },
    {
      name: 'below maxPercent is not held',
      candidates: many(5),
      managed: 40,
      expectedAllowed: 5,
    },
    {
      name: 'excluded sources count toward the threshold, with the vanished ones',
      candidates: [...many(6), ...many(5, 'x', false)],
      managed: 20,
      expectedAllowed: 0,
      expectedHeld: 11,
    },
    {
      name: 'a policy edit that excludes most copies is held like vanished sources',
      candidates: many(24, 'x', false),
      managed: 24,
      expectedAllowed: 0,
      expectedHeld: 24,
    },
    {
      name: 'a policy edit that excludes up to maxPercent is not held',
      candidates: many(12, 'x', false),
      managed: 24,
      expectedAllowed: 12,
    },
    {
      name: 'above maxPercent holds the vanished ones',
      candidates: many(11),
      managed: 20,
      expectedAllowed: 0,
      expectedHeld: 11,
    },
    {
      name: 'above maxPercent holds the excluded ones too',
      candidates: [...many(15), ...many(3, 'x', false)],
      managed: 24,
      expectedAllowed: 0,
      expectedHeld: 18,
    },
    {
      name: 'sources the listing shows being deleted (a scale to zero) are never held, nor counted',
      candidates: many(30, 'e').map((c) => ({ ...c, ending: true as const })),
      managed: 30,
      expectedAllowed: 30,
    },
    {
      name: 'beside vanished ones the guard holds: those go, only the vanished are held',
      candidates: [...many(4, 'e').map((c) => ({ ...c, ending: true as const })), ...many(11)],
      managed: 20,
      expectedAllowed: 4,
      expectedHeld: 11,
    },
    {
      name: 'a stricter guard holds less',
      candidates: many(3),
      managed: 10,
      guard: { maxPercent: 20, minCopies: 5 },
      expectedAllowed: 0,
      expectedHeld: 3,
    },
  ];
  it.each(cases)('$name', ({ candidates, managed, guard, expectedAllowed, expectedHeld }) => {
    const verdict = guardDeletes({
      tenant: TENANT,
      kind: 'ConfigMap',
      candidates: candidates,
      managedCopies: managed,
      guard: guard ?? GUARD,
      confirmed: new Set(),
    });
    expect(verdict.allowed).toHaveLength(expectedAllowed);
    expect(verdict.held?.count).toBe(expectedHeld);
    expect(verdict.held?.candidates.length).toBe(expectedHeld);
    expect(verdict.held?.candidates.some((c) => c.ending) ?? false).toBe(false);
  });

  it('names the count and the kubectl annotate command with the token', () => {
    const vanished = many(15);
    const verdict = guardDeletes({
      tenant: TENANT,
      kind: 'ConfigMap',
      candidates: vanished,
      managedCopies: 24,
      guard: GUARD,
      confirmed: new Set(),
    });
    const token = `ConfigMap:${confirmationToken(vanished)}`;
    expect(verdict.held?.reason).toContain('delete 15 of the 24 ConfigMap copies');
    expect(verdict.held?.reason).toContain(
      `kubectl annotate tenantcluster ${TENANT} ${TenantClusterKeys.ConfirmDeletes}=${token} --overwrite`,
    );
    expect(verdict.held?.warning).toEqual({
      reason: 'MassDeleteGuard',
      message: verdict.held?.reason,
    });
    expect(verdict.allowed).toEqual([]);
  });

  it('says which deletions a policy edit caused and that `tenantplane plan` lists them', () => {
    const edit = (candidates: GcCandidate[]) =>
      guardDeletes({
        tenant: TENANT,
        kind: 'ConfigMap',
        candidates,
        managedCopies: 24,
        guard: GUARD,
        confirmed: new Set(),
      }).held;
    const excluded = many(24, 'x', false);
    const token = `ConfigMap:${confirmationToken(excluded)}`;
    expect(edit(excluded)?.reason).toBe(
      `the pass would delete 24 of the 24 ConfigMap copies of tenant cluster "${TENANT}" that the sync policy now excludes (more than 50%), so it deleted none of them; \`tenantplane plan ${TENANT}\` lists them; if the policy edit is meant, confirm once with: kubectl annotate tenantcluster ${TENANT} ${TenantClusterKeys.ConfirmDeletes}=${token} --overwrite`,
    );
    expect(edit(excluded)?.skipNote).toBe(
      `not deleted: the mass-delete guard holds the 24 ConfigMap deletions of this pass (more than 50% of 24 copies) until they are confirmed with ${TenantClusterKeys.ConfirmDeletes}=${token}`,
    );
    expect(edit([...many(10), ...many(3, 'x', false)])?.reason).toContain(
      '13 of the 24 ConfigMap copies of tenant cluster "dev" (10 whose sources vanished, 3 that the sync policy now excludes) (more than 50%)',
    );
  });

  it('a matching confirmation lets all through', () => {
    const vanished = many(15);
    const all = [...vanished, candidate('gone', false)];
    const token = `ConfigMap:${confirmationToken([...all].reverse())}`;
    const verdict = guardDeletes({
      tenant: TENANT,
      kind: 'ConfigMap',
      candidates: all,
      managedCopies: 24,
      guard: GUARD,
      confirmed: new Set([token]),
    });
    expect(verdict.held).toBeUndefined();
    expect(names(verdict.allowed)).toEqual(names(all));
  });

  it('a stale confirmation (of another set) does not', () => {
    const stale = `ConfigMap:${confirmationToken(many(14))}`;
    const otherKind = `Secret:${confirmationToken(many(15))}`;
    const verdict = guardDeletes({
      tenant: TENANT,
      kind: 'ConfigMap',
      candidates: many(15),
      managedCopies: 24,
      guard: GUARD,
      confirmed: new Set([stale, otherKind]),
    });
    expect(verdict.held?.count).toBe(15);
    expect(verdict.allowed).toEqual([]);
  });
});

describe('resumedPassFallback: the resumed path inside the mass-delete guard', () => {
  it('lets a resumed pass delete only what no full count of copies could hold', () => {
    expect(resumableDeletes(GUARD)).toBe(10);
    expect(resumedPassFallback(10, GUARD)).toBeUndefined();
    expect(resumedPassFallback(11, GUARD)).toBe(
      '11 copies lost their sources at once; the mass-delete guard needs a full listing',
    );
    fc.assert(
      fc.property(
        fc.record({ maxPercent: fc.integer({ min: 0, max: 100 }), minCopies: fc.nat(200) }),
        fc.nat(1000),
        (guard, extra) => {
          // Whatever the kind's full count, the bound's deletions are never held.
          const deletes = many(resumableDeletes(guard));
          const managed = deletes.length + extra;
          expect(
            guardDeletes({
              tenant: TENANT,
              kind: 'ConfigMap',
              candidates: deletes,
              managedCopies: managed,
              guard: guard,
              confirmed: new Set(),
            }).held,
          ).toBe(undefined);
        },
      ),
    );
  });

  describe('a resumed pass whose changes would exceed the mass-delete guard falls back to the full pass', () => {
    /** 30 synced sources, resumed once; then `removed` of them vanish from the tenant. */
    async function resumedAfterRemoving(removed: number) {
      const sources = Array.from({ length: 30 }, (_, i) => cm('default', `c${i}`));
      const world = clusters(sources, [], { toHost: [CONFIGMAP] });
      await runPass({ tenant: TENANT, ...world });
      expect((await runPass({ tenant: TENANT, ...world })).path).toBe('resumed');
      for (const source of sources.slice(0, removed)) {
        world.tenantApi.remove(CONFIGMAP, 'default', source.metadata.name);
      }
      const result = await runPass({ tenant: TENANT, ...world });
      const deletes = result.decisions.filter((d) => d.action === 'Delete').length;
      return { result, deletes, left: world.hostApi.objects(CONFIGMAP).length };
    }

    it('within the bound it stays resumed and deletes', async () => {
      const { result, deletes } = await resumedAfterRemoving(10);
      expect([result.path, deletes, result.complete]).toEqual(['resumed', 10, true]);
    });

    it('beyond the bound the full pass decides: these deletions are within the guard', async () => {
      const { result, deletes } = await resumedAfterRemoving(11);
      expect(result.path).toBe('full');
      expect(result.pathReason).toBe(
        'ConfigMap: 11 copies lost their sources at once; the mass-delete guard needs a full listing',
      );
      expect([deletes, result.complete]).toEqual([11, true]);
    });

    it('beyond the bound the full pass decides: these deletions the guard holds', async () => {
      const { result, deletes, left } = await resumedAfterRemoving(16);
      expect(result.path).toBe('full');
      expect([deletes, left, result.complete]).toEqual([0, 30, false]);
      expect(result.warnings?.map((w) => w.reason)).toEqual(['MassDeleteGuard']);
    });
  });
});
