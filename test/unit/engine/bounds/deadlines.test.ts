/**
 * Deadlines that hold: the request-deadline scope (nesting never extends an outer deadline), the
 * bounds of the work and of the whole pass, a stalled server named and stopping the pass, and
 * every request of a kind's work made inside the pass deadline.
 */
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_REPORT_RESERVE_MS,
  passEndDeadline,
  stallNote,
  workDeadline,
} from '../../../../lib/engine/bounds/deadlines.js';
import { runPass } from '../../../../lib/engine/index.js';
import { syncKind } from '../../../../lib/engine/pipeline/sync-kind.js';
import { compileKindRule } from '../../../../lib/engine/policy/scope.js';
import {
  ClusterError,
  currentRequestDeadline,
  type RequestDeadline,
  withRequestDeadline,
} from '../../../../lib/ports/index.js';
import { MemoryCluster } from '../../fakes/memory-cluster.js';
import { CONFIGMAP, clusters, cm, passContext } from '../support.js';

const NOW = Date.UTC(2030, 0, 1);

describe('the request-deadline scope', () => {
  it('bounds what runs inside it, nests, and never extends an outer deadline', async () => {
    const outer: RequestDeadline = { atMs: 1000, what: 'outer' };
    const seen: (RequestDeadline | undefined)[] = [];
    await withRequestDeadline(outer, async () => {
      seen.push(currentRequestDeadline());
      await withRequestDeadline({ atMs: 500, what: 'inner' }, async () => {
        await Promise.resolve();
        seen.push(currentRequestDeadline());
      });
      await withRequestDeadline({ atMs: 2000, what: 'later' }, async () => {
        seen.push(currentRequestDeadline());
      });
      await withRequestDeadline(undefined, async () => {
        seen.push(currentRequestDeadline());
      });
    });
    seen.push(currentRequestDeadline());
    expect(seen.map((d) => d?.what)).toEqual(['outer', 'inner', 'outer', 'outer', undefined]);
  });
});

describe('the bounds of a pass', () => {
  it('the work ends by the deadline; every request by the deadline plus the reserve', () => {
    expect(workDeadline({})).toBeUndefined();
    expect(passEndDeadline({})).toBeUndefined();
    expect(workDeadline({ deadline: NOW })).toEqual({ atMs: NOW, what: 'the pass deadline' });
    expect(passEndDeadline({ deadline: NOW })?.atMs).toBe(NOW + DEFAULT_REPORT_RESERVE_MS);
    expect(passEndDeadline({ deadline: NOW, reportReserveMs: 5000 })?.atMs).toBe(NOW + 5000);
    expect(passEndDeadline({ deadline: NOW, reportReserveMs: -1 })?.atMs).toBe(NOW);
  });

  it('names a stalled server, and only a request that got no answer in time', () => {
    const stalled = new ClusterError('Transport', 'https://h:6443 stalled: no answer', {
      timedOut: true,
    });
    expect(stallNote('tenant', stalled)).toBe(
      'the tenant cluster stalled (https://h:6443 stalled: no answer)',
    );
    expect(stallNote('host', new ClusterError('Transport', 'ECONNREFUSED'))).toBeUndefined();
    expect(stallNote('host', new Error('x'))).toBeUndefined();
  });
});

describe('a kind under the pass deadline', () => {
  it('makes every request inside the pass deadline', async () => {
    const scopes: (string | undefined)[] = [];
    const record = () => void scopes.push(currentRequestDeadline()?.what);
    const tenantApi = new MemoryCluster('tenant', { beforeCall: record }).seed(cm('a', 'x'));
    const hostApi = new MemoryCluster('host', { beforeCall: record });
    const ctx = passContext({ tenantApi, hostApi, budget: { deadline: NOW + 60_000 } });
    await syncKind(ctx, compileKindRule(CONFIGMAP));
    expect(scopes.length).toBeGreaterThanOrEqual(3);
    expect(new Set(scopes)).toEqual(new Set(['the pass deadline']));
  });

  it('a listing that stalled stops the pass and says which cluster stalled', async () => {
    const stalled = new ClusterError('Transport', 'https://t:6443 stalled: no answer to GET', {
      timedOut: true,
    });
    const tenantApi = new MemoryCluster('tenant').failWhen((c) =>
      c.method === 'list' ? stalled : undefined,
    );
    const ctx = passContext({ tenantApi });
    await syncKind(ctx, compileKindRule(CONFIGMAP));
    expect(ctx.scope.bounds.isStopped()).toBe(true);
    expect(ctx.ledger.errors.incompleteKinds).toContain(
      'the tenant cluster stalled (https://t:6443 stalled: no answer to GET)',
    );
  });

  it('the whole pass runs inside the deadline plus the reserve', async () => {
    const scopes = new Set<string | undefined>();
    const record = () => void scopes.add(currentRequestDeadline()?.what);
    const { tenantApi, hostApi } = clusters(
      [cm('a', 'x')],
      [],
      {},
      {
        tenant: { beforeCall: record },
        host: { beforeCall: record },
      },
    );
    const deadline = Date.now() + 60_000;
    const result = await runPass({ tenant: 'dev', tenantApi, hostApi, budget: { deadline } });
    expect(result.complete).toBe(true);
    expect(scopes).toEqual(
      new Set(['the pass deadline', 'the reporting reserve after the pass deadline']),
    );
  });
});
