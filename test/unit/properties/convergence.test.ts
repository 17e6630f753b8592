/**
 * The progress guarantee as a property: whatever a tenant does (edits, deletes, recreations of
 * ConfigMaps and Secrets, immutable ones and Secret type changes included) between passes of any
 * write budget, against a host that may rewrite what it stores and a name a foreign object holds,
 * once the edits stop the passes converge within a bounded number of passes, and from then on a
 * pass writes nothing at all: no host object, no status.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { reverseLookup, runPass } from '../../../lib/engine/index.js';
import { Annotations } from '../../../lib/engine/names/metadata.js';
import type { KindRef, KubeObject, PassResult } from '../../../lib/ports/index.js';
import { CONFIGMAP, clusters, HOST_NS, hn, SECRET, TENANT } from '../engine/support.js';
import type { MemoryCluster } from '../fakes/memory-cluster.js';

const KINDS = [CONFIGMAP, SECRET] as const;
const NAMESPACES = ['a', 'b'] as const;
const NAMES = ['n0', 'n1', 'n2'] as const;
const DAY = 24 * 60 * 60_000;

interface Slot {
  kind: (typeof KINDS)[number];
  namespace: string;
  name: string;
}

interface Content {
  value: string;
  immutable: boolean;
  type: 'Opaque' | 'kubernetes.io/basic-auth';
}

type Op =
  | { op: 'put'; slot: Slot; content: Content }
  | { op: 'recreate'; slot: Slot; content: Content }
  | { op: 'delete'; slot: Slot }
  | { op: 'pass'; maxWrites: number | undefined };

const slot = fc.record({
  kind: fc.constantFrom(...KINDS),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom(...NAMES),
});
const content = fc.record({
  value: fc.constantFrom('v1', 'v2', 'v3'),
  immutable: fc.boolean(),
  type: fc.constantFrom('Opaque' as const, 'kubernetes.io/basic-auth' as const),
});
const budget = fc.option(fc.integer({ min: 2, max: 6 }), { nil: undefined });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('put' as const), slot, content }),
  fc.record({ op: fc.constant('recreate' as const), slot, content }),
  fc.record({ op: fc.constant('delete' as const), slot }),
  fc.record({ op: fc.constant('pass' as const), maxWrites: budget }),
);

let uids = 0;

function tenantObject(s: Slot, c: Content): KubeObject {
  uids += 1;
  const object: KubeObject = {
    ...s.kind,
    metadata: { namespace: s.namespace, name: s.name, uid: `t-${uids}` },
    // `drop` is what a pruning host removes from ConfigMaps.
    data: { k: c.value, drop: 'x' },
  };
  if (c.immutable) object.immutable = true;
  if (s.kind.kind === 'Secret') object.type = c.type;
  return object;
}

/** The tenant's own apiserver rules: an immutable object or a Secret's type needs a recreation. */
function applyTenantOp(tenantApi: MemoryCluster, o: Exclude<Op, { op: 'pass' }>): void {
  const current = tenantApi.peek(o.slot.kind, o.slot.namespace, o.slot.name);
  if (o.op === 'delete') {
    tenantApi.remove(o.slot.kind, o.slot.namespace, o.slot.name);
    return;
  }
  const next = tenantObject(o.slot, o.content);
  const editable =
    o.op === 'put' &&
    current !== undefined &&
    current.immutable !== true &&
    (current.type ?? 'Opaque') === (next.type ?? 'Opaque');
  if (editable) {
    tenantApi.replace({ ...next, metadata: { ...current.metadata } });
    return;
  }
  tenantApi.remove(o.slot.kind, o.slot.namespace, o.slot.name);
  tenantApi.seed(next);
}

/** Host copies of `kind` that are this tenant's, by their tenant object `ns/name`. */
function copies(hostApi: MemoryCluster, kind: KindRef): Map<string, KubeObject> {
  const found = new Map<string, KubeObject>();
  for (const o of hostApi.objects(kind)) {
    const ref = reverseLookup(o);
    if (ref?.tenant === TENANT) found.set(`${ref.virtualNamespace}/${ref.virtualName}`, o);
  }
  return found;
}

/** The host is what the tenant wants: every source copied (as the host stores it), no orphan. */
function expectConverged(
  tenantApi: MemoryCluster,
  hostApi: MemoryCluster,
  prune: boolean,
  foreign: boolean,
) {
  for (const kind of KINDS) {
    const have = copies(hostApi, kind);
    const sources = tenantApi.objects(kind);
    const foreignHeld = (s: KubeObject) =>
      foreign && kind === CONFIGMAP && s.metadata.namespace === 'a' && s.metadata.name === 'n0';
    const wanted = sources.filter((s) => !foreignHeld(s));
    expect([...have.keys()].sort()).toEqual(
      wanted.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort(),
    );
    for (const source of wanted) {
      const copy = have.get(`${source.metadata.namespace}/${source.metadata.name}`);
      const data = { ...(source.data as Record<string, string>) };
      if (prune && kind === CONFIGMAP) delete data.drop;
      expect(copy?.data).toEqual(data);
      expect(copy?.immutable).toEqual(source.immutable);
      expect(copy?.type).toEqual(source.type);
      expect(copy?.metadata.annotations?.[Annotations.VirtualUid]).toBe(source.metadata.uid);
    }
  }
}

describe('convergence (property)', () => {
  it('every sequence converges within the bound once edits stop, then writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 25 }),
        budget,
        fc.boolean(),
        fc.boolean(),
        async (ops, finalBudget, prune, foreign) => {
          const host: KubeObject[] = foreign
            ? [{ ...CONFIGMAP, metadata: { namespace: HOST_NS, name: hn('a', 'n0') }, data: {} }]
            : [];
          const { tenantApi, hostApi } = clusters(
            [],
            host,
            { toHost: [...KINDS] },
            {
              host: {
                normalize: prune
                  ? (o) => {
                      if (o.kind === 'ConfigMap' && o.data)
                        delete (o.data as Record<string, string>).drop;
                    }
                  : undefined,
              },
            },
          );
          const now = { t: Date.parse('2030-01-01T00:00:00Z') };
          const pass = (maxWrites: number | undefined): Promise<PassResult> => {
            now.t += 60_000;
            return runPass({
              tenant: TENANT,
              tenantApi,
              hostApi,
              clock: { now: () => now.t },
              statusReportIntervalMs: DAY,
              budget: maxWrites === undefined ? {} : { maxWrites },
            });
          };
          for (const o of ops) {
            if (o.op === 'pass') await pass(o.maxWrites);
            else applyTenantOp(tenantApi, o);
          }

          // The bound: every kind gets at least floor(B / kinds) writes a pass; the work is at most
          // one delete per copy and three writes per source (a replacement and the one update that
          // records a host's rewrite).
          const sources = KINDS.reduce((n, k) => n + tenantApi.objects(k).length, 0);
          const held = KINDS.reduce((n, k) => n + copies(hostApi, k).size, 0);
          const share =
            finalBudget === undefined
              ? Infinity
              : Math.max(1, Math.floor(finalBudget / KINDS.length));
          const bound = Math.ceil((held + 3 * sources) / share) + 3;
          let passes = 0;
          for (;;) {
            passes += 1;
            const result = await pass(finalBudget);
            expect(result.errors).toEqual([]);
            const quiet =
              result.requests.host.writes === 0 &&
              result.decisions.every((d) => d.action === 'Skip');
            if (quiet) break;
            expect(passes).toBeLessThanOrEqual(bound);
          }
          expectConverged(tenantApi, hostApi, prune, foreign);

          // Converged: no write at all, status included, pass after pass.
          const writes = hostApi.requestCount().writes;
          for (let i = 0; i < 3; i++) {
            const steady = await pass(finalBudget);
            expect(steady.statusWritten).toBe(false);
            expect(steady.complete).toBe(true);
          }
          expect(hostApi.requestCount().writes).toBe(writes);
        },
      ),
      { numRuns: 150 },
    );
  });
});
