/**
 * Back-off on 429 as the server says, on the real clusters: the fault proxy in front of the real
 * host apiserver answers writes 429 Too Many Requests with a `Retry-After`. Within the pass
 * deadline the pass waits as told (the gaps measured at the proxy), sends them again and
 * converges in the same pass, and its Decisions, logs and Events say so; a `Retry-After` longer
 * than the deadline leaves is the matrix's 429 row (`matrix-statuses.test.ts`).
 */
import { describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../../lib/ports/index.js';
import { kubectl, useApis } from '../engine/support.js';
import { Faults } from '../support/fault-proxy.js';
import { hostConfigMaps, matrixRow, useProxies } from './matrix.js';
import { scenario } from './support.js';

const apis = useApis();
const proxies = useProxies();

const WAITED =
  'the host apiserver asked to retry after 2 s, then 2 s (429 Too Many Requests); sent again after waiting as asked';

describe('429 with Retry-After within the deadline', () => {
  it('the host answers a write 429 twice with Retry-After: 2: the pass waits as told each time, converges, and says so', async () => {
    const s = await scenario(apis(), 'retry-after');
    const log = proxies().host.log;
    const from = log.length;
    const { run } = await matrixRow(
      s,
      proxies(),
      {
        fault: '429 Too Many Requests with Retry-After: 2, twice, within the pass deadline',
        budget: { concurrency: 1, deadline: Date.now() + 60_000 },
        hostRules: [
          {
            match: { method: /^(POST|PUT)$/, path: hostConfigMaps(s) },
            skip: 1,
            times: 2,
            action: Faults.status(429, 'TooManyRequests', { headers: { 'Retry-After': '2' } }),
          },
        ],
      },
      (run) => {
        // At the proxy: after each 429, no request of the pass to the host for 2 s.
        const seen = log.slice(from);
        const gaps = seen.flatMap((entry, i) =>
          entry.status === 429 && seen[i + 1] ? [seen[i + 1]!.at - entry.at] : [],
        );
        expect(gaps).toHaveLength(2);
        for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(2_000);
        // The request answered 429 is the one sent again.
        const throttled = seen.filter((e) => e.status === 429);
        const next = throttled.map((e) => seen[seen.indexOf(e) + 1]);
        expect(next.map((e) => `${e?.method} ${e?.path}`)).toEqual(
          throttled.map((e) => `${e.method} ${e.path}`),
        );
        const result = run.result;
        expect(result?.complete).toBe(true);
        expect(result?.errors).toEqual([]);
        expect(result?.counts).toMatchObject({ Create: 2, Update: 2, Delete: 2 });
        expect(result?.throttled?.retried).toBe(2);
        expect(result?.throttled?.waitedMs).toBeGreaterThanOrEqual(4_000);
        expect(result?.throttled?.notBefore).toBeUndefined();
        const said = result?.decisions.filter((d) => d.reason.includes('429')) ?? [];
        expect(said).toHaveLength(1);
        expect(said[0]?.reason.endsWith(`; ${WAITED}`)).toBe(true);
        expect(said[0]?.error).toBeUndefined();
        expect(run.logs.filter((l) => JSON.stringify(l).includes(WAITED))).toHaveLength(1);
      },
    );
    // The six writes, and the two answered 429 before they were sent again.
    expect(run.result?.requests.host.writes).toBe(8);
    // What `kubectl describe tenantcluster` shows: the Decision's Event carries it.
    const events = JSON.parse(
      await kubectl([
        'get',
        'events',
        '-n',
        'default',
        '--field-selector',
        `involvedObject.name=${s.t.name}`,
        '-o',
        'json',
      ]),
    ) as { items: (KubeObject & { message?: string })[] };
    expect(events.items.some((e) => e.message?.includes('asked to retry after 2 s'))).toBe(true);
  });
});
