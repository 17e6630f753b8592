/**
 * The pure parts of `local:serverless`: the two routes of its wake endpoint (a tenant's own, and
 * the local tenant apiserver's, handed on to each tenant as that tenant) and the invocation line.
 */
import { describe, expect, it } from '@jest/globals';
import { invocationLine } from '../../../lib/localcluster/serverless/functions.js';
import { localWakeHandler } from '../../../lib/localcluster/serverless/wake-server.js';

const TOKENS: Record<string, string> = { alpha: 'token-alpha', beta: 'token-beta' };

function endpoint() {
  const invoked: string[] = [];
  const handle = localWakeHandler({
    cert: '',
    key: '',
    tenants: () => Object.keys(TOKENS),
    tokenOf: async (tenant) => TOKENS[tenant],
    apiserverToken: async () => 'token-apiserver',
    invoke: async (tenant) => {
      invoked.push(tenant);
    },
    window: { quietMs: 10_000, maxInvocationMs: 60_000 },
    log: () => {},
  });
  const post = async (path: string, token?: string) =>
    (
      await handle({
        method: 'POST',
        path,
        headers: token ? { authorization: `Bearer ${token}` } : {},
        body: '{}',
      })
    ).statusCode;
  return { invoked, post };
}

describe('the local wake endpoint', () => {
  it.each([
    { name: 'no token', path: '/tenants/alpha', token: undefined, status: 401 },
    { name: "another tenant's token", path: '/tenants/alpha', token: 'token-beta', status: 403 },
    { name: 'a tenant not run here', path: '/tenants/gamma', token: 'token-alpha', status: 403 },
    {
      name: "a tenant's token as the apiserver",
      path: '/apiservers/tenant',
      token: 'token-alpha',
      status: 403,
    },
    { name: 'another apiserver', path: '/apiservers/host', token: 'token-apiserver', status: 403 },
  ])('invokes nothing for $name', async ({ path, token, status }) => {
    const { invoked, post } = endpoint();
    expect(await post(path, token)).toBe(status);
    expect(invoked).toEqual([]);
  });

  it("wakes the tenant named, with the tenant's own token, once per burst", async () => {
    const { invoked, post } = endpoint();
    expect(await post('/tenants/beta', 'token-beta')).toBe(202);
    expect(await post('/tenants/beta', 'token-beta')).toBe(202);
    expect(invoked).toEqual(['beta']);
  });

  it("hands the tenant apiserver's batch on to every tenant, each coalesced on its own", async () => {
    const { invoked, post } = endpoint();
    expect(await post('/tenants/alpha', 'token-alpha')).toBe(202);
    expect(await post('/apiservers/tenant', 'token-apiserver')).toBe(202);
    // alpha follows already (coalesced); beta is woken.
    expect(invoked.sort()).toEqual(['alpha', 'beta']);
  });
});

describe('the invocation line', () => {
  const base = { tenant: 'alpha', reason: 'wake' as const, requestId: 'r', durationMs: 1200 };

  it('counts the first pass and the follow: passes and changes', () => {
    const line = invocationLine(base, {
      result: {
        counts: { Create: 2, Update: 1, Delete: 0, Skip: 4 },
        follow: { followed: true, passes: 3, changes: 5 },
      },
    });
    expect(line).toEqual({ ...base, cold: true, passes: 4, changes: 8 });
  });

  it('says why an invocation did not follow, and what a failed one ended with', () => {
    const idle = invocationLine(base, {
      result: { counts: { Create: 0 }, follow: { followed: false, reason: 'idle' } },
    });
    expect(idle).toMatchObject({ passes: 1, changes: 0, notFollowed: 'idle' });
    expect(
      invocationLine(base, { error: { name: 'KubeconfigLoadError', message: 'no secret' } }),
    ).toMatchObject({ passes: 0, error: 'KubeconfigLoadError: no secret' });
    expect(
      invocationLine(base, { exit: { code: null, signal: 'SIGKILL', timedOut: true } }).error,
    ).toBe('the invocation timed out');
  });
});
