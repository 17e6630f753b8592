/**
 * The next kind's host listing, read ahead of its turn: it starts once a kind's own host listing is
 * complete, so the host apiserver lists the next kind while this one's tenant pages are applied;
 * it holds at most one page's worth before its turn; one that fails is recorded by its own kind;
 * one the pass never takes is stopped and awaited.
 */
import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import {
  planHostReadAhead,
  READ_AHEAD_BYTES,
  readNextHostListing,
  settleHostReadAhead,
  takeHostListing,
} from '../../../../lib/engine/pipeline/host-ahead.js';
import { ClusterError, type KubeObject, type ListOptions } from '../../../../lib/ports/index.js';
import type { FakeCall, MemoryCluster } from '../../fakes/memory-cluster.js';
import {
  CONFIGMAP,
  clusters,
  cm,
  decisionLines,
  HOST_NS,
  hn,
  hostCopyOf,
  passContext,
  SECRET,
  secret,
  TENANT,
} from '../support.js';

const SPEC = { toHost: [CONFIGMAP, SECRET] };

/** `side kind page` for every LIST, in the order the two clusters were asked (`options`). */
function listLog() {
  const log: string[] = [];
  const page = (options: ListOptions | undefined) => (options?.continueToken ? 'next' : 'first');
  const record = (side: string) => (call: FakeCall) => {
    if (call.method === 'list') log.push(`${side} ${call.kind} ${page(call.options)}`);
  };
  return {
    log,
    options: { tenant: { beforeCall: record('tenant') }, host: { beforeCall: record('host') } },
  };
}

const names = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);

describe('the host listing read ahead', () => {
  it("lists the next kind's host side while this kind's tenant pages are applied", async () => {
    const maps = names(7, 'm').map((n) => cm('default', n));
    const secrets = names(3, 's').map((n) => secret('default', n));
    const { log, options } = listLog();
    const { tenantApi, hostApi } = clusters(
      [...maps, ...secrets],
      [...maps, ...secrets].map((o) => hostCopyOf(o)),
      SPEC,
      options,
    );

    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { pageSize: 2 },
    });

    expect(result.errors).toEqual([]);
    expect(result.decisions).toEqual([]);
    const tenantMapPages = log.filter((l) => l.startsWith('tenant ConfigMap'));
    expect(tenantMapPages).toHaveLength(4);
    const lastTenantMapPage = log.lastIndexOf('tenant ConfigMap next');
    // Without the read-ahead, the host Secrets are listed after every ConfigMap page.
    expect(log.indexOf('host Secret first')).toBeGreaterThan(
      log.lastIndexOf('host ConfigMap next'),
    );
    expect(log.indexOf('host Secret first')).toBeLessThan(lastTenantMapPage);
    // Each listing still runs once: the read-ahead is the kind's own listing, not another one.
    expect(log.filter((l) => l === 'host Secret first')).toHaveLength(1);
    expect(log.filter((l) => l === 'host ConfigMap first')).toHaveLength(1);
  });

  it('converges exactly as without it: creates, updates and GC of both kinds', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'new'), cm('default', 'changed', { k: 'new' }), secret('default', 's-new')],
      [
        hostCopyOf(cm('default', 'changed')),
        hostCopyOf(cm('default', 'gone')),
        hostCopyOf(secret('default', 's-gone')),
      ],
      SPEC,
    );
    const result = await runPass({
      lease: false,
      tenant: TENANT,
      tenantApi,
      hostApi,
      budget: { pageSize: 1 },
    });
    expect(result.errors).toEqual([]);
    expect(decisionLines(result.decisions)).toEqual([
      `Create ConfigMap default/new -> ${hn('default', 'new')}`,
      `Create Secret default/s-new -> ${hn('default', 's-new')}`,
      `Delete ConfigMap default/gone -> ${hn('default', 'gone')}`,
      `Delete Secret default/s-gone -> ${hn('default', 's-gone')}`,
      `Update ConfigMap default/changed -> ${hn('default', 'changed')}`,
    ]);
  });

  it('a failed listing read ahead is the failure of its own kind; the kind before converges', async () => {
    const { tenantApi, hostApi } = clusters(
      [cm('default', 'a'), secret('default', 's')],
      [hostCopyOf(secret('default', 'gone'))],
      SPEC,
    );
    hostApi.failWhen((call) =>
      call.method === 'list' && call.kind === 'Secret'
        ? new ClusterError('Forbidden', 'secrets is forbidden')
        : undefined,
    );
    const result = await runPass({ lease: false, tenant: TENANT, tenantApi, hostApi });
    expect(decisionLines(result.decisions)).toEqual([
      `Create ConfigMap default/a -> ${hn('default', 'a')}`,
    ]);
    expect(result.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('listing host Secret objects failed: secrets is forbidden'),
    ]);
    // No GC from a failed listing: the Secret copy stays.
    expect(hostApi.peek(SECRET, HOST_NS, hn('default', 'gone'))).toBeDefined();
  });
});

/** Host Secret pages that each weigh `bytes` (as the client reports a response's length). */
function weighedSecretPages(hostApi: MemoryCluster, bytes: number, gate?: Promise<void>): string[] {
  const asked: string[] = [];
  const list = hostApi.list.bind(hostApi);
  hostApi.list = async (kind, options) => {
    const page = await list(kind, options);
    if (kind.kind !== 'Secret') return page;
    asked.push(options?.continueToken ? 'next' : 'first');
    if (asked.length === 2 && gate) await gate;
    return { ...page, bytes };
  };
  return asked;
}

describe('readNextHostListing', () => {
  const hostSecrets = () => names(4, 's').map((n): KubeObject => hostCopyOf(secret('default', n)));

  it('holds at most one page worth before its turn, then reads on once taken', async () => {
    const { hostApi } = clusters([], hostSecrets());
    const asked = weighedSecretPages(hostApi, Math.ceil(READ_AHEAD_BYTES / 2) + 1);
    const ctx = passContext({ hostApi, budget: { pageSize: 1 } });
    planHostReadAhead(ctx, [CONFIGMAP, SECRET]);
    readNextHostListing(ctx, CONFIGMAP);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Two pages of just over half the bound each: the third waits for the kind's turn.
    expect(asked).toEqual(['first', 'next']);

    const listing = takeHostListing(ctx, SECRET);
    const listed = await listing;
    expect(listed?.map((o) => o.metadata.name)).toEqual(names(4, 's').map((n) => hn('default', n)));
    expect(asked).toEqual(['first', 'next', 'next', 'next']);
    await settleHostReadAhead(ctx);
  });

  it('a listing never taken is stopped at its next page and awaited', async () => {
    const { hostApi } = clusters([], hostSecrets());
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const asked = weighedSecretPages(hostApi, 1000, gate);
    const ctx = passContext({ hostApi, budget: { pageSize: 1 } });
    planHostReadAhead(ctx, [CONFIGMAP, SECRET]);
    readNextHostListing(ctx, CONFIGMAP);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual(['first', 'next']); // the second page hangs on the gate

    let settled = false;
    const settling = settleHostReadAhead(ctx).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false); // a request still out: the pass waits for it
    open();
    await settling;
    expect(asked).toEqual(['first', 'next']); // and nothing more was asked
  });

  it('reads nothing ahead for the last kind, nor for a kind not planned', async () => {
    const { hostApi } = clusters([], hostSecrets());
    const ctx = passContext({ hostApi });
    planHostReadAhead(ctx, [CONFIGMAP, SECRET]);
    readNextHostListing(ctx, SECRET);
    readNextHostListing(ctx, { apiVersion: 'v1', kind: 'Service' });
    expect(takeHostListing(ctx, SECRET)).toBeUndefined();
    await settleHostReadAhead(ctx);
    expect(hostApi.callsOf('list')).toEqual([]);
  });

  it('tells once no host listing is left to start, and only once', async () => {
    const { hostApi } = clusters([], hostSecrets());
    const ctx = passContext({ hostApi });
    let told = 0;
    planHostReadAhead(ctx, [CONFIGMAP, SECRET], () => {
      told += 1;
    });
    readNextHostListing(ctx, CONFIGMAP); // starts the Secrets' listing
    expect(told).toBe(0);
    await takeHostListing(ctx, SECRET);
    readNextHostListing(ctx, SECRET); // the last kind: nothing left to start
    readNextHostListing(ctx, SECRET);
    expect(told).toBe(1);
    await settleHostReadAhead(ctx);
  });

  it('drops a listing read ahead for a kind whose turn passed', async () => {
    const { hostApi } = clusters([], hostSecrets());
    const third = { apiVersion: 'v1', kind: 'Service' };
    const ctx = passContext({ hostApi });
    planHostReadAhead(ctx, [CONFIGMAP, SECRET, third]);
    readNextHostListing(ctx, CONFIGMAP);
    // The Secret kind never took its listing (it resumed after all): the next kind drops it.
    expect(takeHostListing(ctx, third)).toBeUndefined();
    expect(takeHostListing(ctx, SECRET)).toBeUndefined();
    await settleHostReadAhead(ctx);
  });
});
