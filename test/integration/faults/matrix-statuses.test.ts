/**
 * The fault matrix, answers: 429 with Retry-After; 500, 503 and 504 on list, create, update and
 * delete; 409 on an update; 410 on a continue token (restarted once, then given up); 403 on one
 * kind; a kind not installed (404); and a copy adopted by an operator between the listing and its
 * deletion (409 on the GC preconditions). Every row proves from host snapshots that no write or
 * delete fell outside the expected set, and that a clean pass then converges.
 */
import { describe, expect, it } from '@jest/globals';
import { Labels } from '../../../lib/engine/index.js';
import type { KubeObject } from '../../../lib/ports/index.js';
import { CONFIGMAP, SECRET, useApis } from '../engine/support.js';
import { Faults } from '../support/fault-proxy.js';
import { hostConfigMaps, matrixRow, TENANT_CONFIGMAP_LIST, useProxies } from './matrix.js';
import { scenario } from './support.js';

const apis = useApis();
const proxies = useProxies();

describe('fault matrix: answers', () => {
  it('429 with a Retry-After longer than the deadline leaves: the pass stops starting work, says so, skips GC', async () => {
    const s = await scenario(apis(), 'ans-429');
    const started = Date.now();
    await matrixRow(
      s,
      proxies(),
      {
        fault: '429 Too Many Requests with Retry-After longer than the pass has left',
        budget: { concurrency: 1, deadline: started + 30_000 },
        hostRules: [
          {
            match: { method: /^(POST|PUT)$/, path: hostConfigMaps(s) },
            skip: 1,
            times: 1,
            action: Faults.status(429, 'TooManyRequests', { headers: { 'Retry-After': '60' } }),
          },
        ],
      },
      (run) => {
        expect(run.result?.incompleteReason).toMatch(
          /^the host apiserver asked to retry after 60 s \(429 Too Many Requests\), longer than the \d+ s left before the pass deadline, so the pass stopped early/,
        );
        // Not sooner than the server asked: the next pass's time, for a follow to wait for.
        const notBefore = Date.parse(run.result?.throttled?.notBefore ?? '');
        expect(notBefore).toBeGreaterThanOrEqual(started + 60_000);
        expect(run.ms).toBeLessThan(30_000); // it did not wait
        expect(run.result?.counts.Delete).toBe(0);
        expect(run.result?.errors.map((e) => e.reason)).toEqual(['TooManyRequests']);
      },
    );
  });

  it.each([
    ['list', 500, 'InternalError'],
    ['create', 503, 'ServiceUnavailable'],
    ['update', 504, 'Timeout'],
    ['delete', 503, 'ServiceUnavailable'],
    ['create', 504, 'Timeout'],
    ['delete', 500, 'InternalError'],
  ] as const)(
    '%s answered %i: an error of that object (or kind), the rest goes on',
    async (verb, code, reason) => {
      const s = await scenario(apis(), `ans-${verb}-${code}`);
      const method = { list: 'GET', create: 'POST', update: 'PUT', delete: 'DELETE' }[verb];
      const onList = verb === 'list';
      await matrixRow(
        s,
        proxies(),
        {
          fault: `${code} on ${verb}`,
          ...(onList
            ? {
                tenantRules: [
                  {
                    match: { path: TENANT_CONFIGMAP_LIST },
                    times: 1,
                    action: Faults.status(code, reason),
                  },
                ],
              }
            : {
                hostRules: [
                  {
                    match: { method, path: hostConfigMaps(s) },
                    times: 1,
                    action: Faults.status(code, reason),
                  },
                ],
              }),
        },
        (run) => {
          const result = run.result;
          expect(result?.errors).toHaveLength(1);
          expect(result?.errors[0]?.message).toContain(`injected HTTP ${code}`);
          if (onList) {
            expect(result?.incompleteReason).toContain('ConfigMap: the tenant listing failed');
            expect(result?.requests.host.writes).toBe(0);
          } else {
            const failed = result?.decisions.filter((d) => d.error !== undefined) ?? [];
            expect(failed.map((d) => d.action)).toEqual([
              { create: 'Create', update: 'Update', delete: 'Delete' }[verb],
            ]);
            // Everything else was done: 2 creates, 2 updates, 2 deletes in all.
            expect(result?.decisions.filter((d) => d.action !== 'Skip')).toHaveLength(6);
          }
        },
      );
    },
  );

  it('409 on an update: a Conflict error of that copy; the next pass reads it again', async () => {
    const s = await scenario(apis(), 'ans-409');
    await matrixRow(
      s,
      proxies(),
      {
        fault: '409 Conflict on update',
        hostRules: [
          {
            match: { method: 'PUT', path: hostConfigMaps(s) },
            times: 1,
            action: Faults.status(409, 'Conflict', { message: 'the object has been modified' }),
          },
        ],
      },
      (run) => {
        expect(run.result?.errors).toEqual([expect.objectContaining({ reason: 'Conflict' })]);
        expect(run.result?.counts).toMatchObject({ Create: 2, Delete: 2 });
      },
    );
  });

  it('410 on a continue token: the listing restarts once and the pass completes', async () => {
    const s = await scenario(apis(), 'ans-410');
    await matrixRow(
      s,
      proxies(),
      {
        fault: '410 Gone on a continue token (once)',
        budget: { pageSize: 3 },
        tenantRules: [
          {
            match: { path: TENANT_CONFIGMAP_LIST, query: { continue: true } },
            times: 1,
            action: Faults.status(410, 'Expired', {
              message: 'The provided continue parameter is too old',
            }),
          },
        ],
      },
      (run) => {
        expect(run.result?.complete).toBe(true);
        expect(run.result?.errors).toEqual([]);
        expect(run.result?.counts).toMatchObject({ Create: 2, Update: 2, Delete: 2 });
      },
    );
  });

  it('410 on every continue token: the listing restarts once, then gives up; no GC', async () => {
    const s = await scenario(apis(), 'ans-410x');
    await matrixRow(
      s,
      proxies(),
      {
        fault: '410 Gone on every continue token',
        budget: { pageSize: 3 },
        tenantRules: [
          {
            match: { path: TENANT_CONFIGMAP_LIST, query: { continue: true } },
            action: Faults.status(410, 'Expired', {
              message: 'The provided continue parameter is too old',
            }),
          },
        ],
      },
      (run) => {
        expect(run.result?.errors).toEqual([
          expect.objectContaining({
            reason: 'Expired',
            message: expect.stringContaining('expired again'),
          }),
        ]);
        expect(run.result?.incompleteReason).toContain('garbage collection was skipped');
        expect(run.result?.counts.Delete).toBe(0);
      },
    );
  });

  it('403 on one kind: that kind is incomplete, the others sync', async () => {
    const s = await scenario(apis(), 'ans-403', { toHost: [CONFIGMAP, SECRET] });
    await matrixRow(
      s,
      proxies(),
      {
        fault: '403 Forbidden on one kind',
        hostRules: [
          {
            match: { method: 'GET', path: new RegExp(`/namespaces/${s.t.hostNamespace}/secrets$`) },
            action: Faults.status(403, 'Forbidden', { message: 'secrets is forbidden' }),
          },
        ],
      },
      (run) => {
        expect(run.result?.incompleteReason).toContain('Secret: the host listing failed');
        expect(run.result?.errors).toEqual([
          expect.objectContaining({ kind: 'Secret', reason: 'Forbidden' }),
        ]);
        expect(run.result?.counts).toMatchObject({ Create: 2, Update: 2, Delete: 2 });
      },
    );
  });

  it('a kind not installed (404): that kind is incomplete, the others sync', async () => {
    const WIDGET = { apiVersion: 'faults.example.com/v1', kind: 'Widget' };
    const s = await scenario(apis(), 'ans-404', {
      toHost: [WIDGET, CONFIGMAP],
      tolerate: ['Widget'],
    });
    const row = { fault: 'a kind not installed (404)', tolerate: ['Widget'] };
    await matrixRow(s, proxies(), row, (run) => {
      expect(run.result?.incompleteReason).toContain('Widget: the host listing failed');
      expect(run.result?.errors).toEqual([
        expect.objectContaining({ kind: 'Widget', reason: 'NotFound' }),
      ]);
      expect(run.result?.counts).toMatchObject({ Create: 2, Update: 2, Delete: 2 });
    });
  });

  it('a copy adopted between the listing and its deletion: 409 on the preconditions, kept', async () => {
    const s = await scenario(apis(), 'ans-adopt');
    let adopted: string | undefined;
    const { outcome } = await (async () => ({
      outcome: await matrixRow(
        s,
        proxies(),
        {
          fault: 'a copy adopted between listing and GC (409 on the delete preconditions)',
          hostRules: [
            {
              match: { method: 'DELETE', path: hostConfigMaps(s) },
              times: 1,
              action: {
                kind: 'hook',
                // An operator takes the copy over: removes app.kubernetes.io/managed-by.
                run: async (request) => {
                  adopted = request.path.split('/').pop() as string;
                  const copy = (await s.t.hostApi.get(
                    CONFIGMAP,
                    s.t.hostNamespace,
                    adopted,
                  )) as KubeObject;
                  const labels = { ...copy.metadata.labels };
                  delete labels[Labels.ManagedBy];
                  await s.t.hostApi.update({ ...copy, metadata: { ...copy.metadata, labels } });
                },
              },
            },
          ],
        },
        (run) => {
          const skip = run.result?.decisions.find((d) => d.hostRef.name === adopted);
          expect(skip).toMatchObject({
            action: 'Skip',
            reason: expect.stringContaining('409 Conflict'),
          });
          expect(run.result?.errors).toEqual([]);
          expect(run.result?.counts.Delete).toBe(1);
        },
      ),
    }))();
    expect(outcome.changes.deleted).not.toContain(`ConfigMap/${adopted}`);
    const kept = await s.t.hostApi.get(CONFIGMAP, s.t.hostNamespace, adopted as string);
    expect(kept?.metadata.labels?.[Labels.ManagedBy]).toBeUndefined();
  });
});
