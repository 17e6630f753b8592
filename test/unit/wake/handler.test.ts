import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  createWakeHandler,
  type WakeDeps,
  WakeOutcome,
  type WakeRequest,
} from '../../../lib/wake/index.js';

const TOKENS: Record<string, string> = { dev: 'dev-token-0123456789', prod: 'prod-token-abcdef' };
const WINDOW = { quietMs: 30_000, maxInvocationMs: 900_000 };

function harness(overrides: Partial<WakeDeps> = {}) {
  const invoked: string[] = [];
  const logs: Array<Readonly<Record<string, unknown>>> = [];
  const lookups: string[] = [];
  let now = 1_000_000;
  const deps: WakeDeps = {
    tokenOf: async (tenant) => {
      lookups.push(tenant);
      return TOKENS[tenant];
    },
    invoke: async (tenant) => {
      invoked.push(tenant);
    },
    now: () => now,
    log: (entry) => logs.push(entry),
    ...overrides,
  };
  const handle = createWakeHandler(deps, { maxBodyBytes: 1000, windowOf: () => WINDOW });
  return {
    handle,
    invoked,
    logs,
    lookups,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const post = (over: Partial<WakeRequest> = {}): WakeRequest => ({
  method: 'POST',
  path: '/tenants/dev',
  headers: { authorization: `Bearer ${TOKENS.dev}` },
  body: '{"kind":"EventList","items":[]}',
  ...over,
});

describe('createWakeHandler: who gets what answer', () => {
  const cases: Array<{ name: string; request: WakeRequest; status: number; outcome: string }> = [
    { name: 'the tenant with its token', request: post(), status: 202, outcome: 'invoked' },
    {
      name: 'a lower-case scheme',
      request: post({ headers: { authorization: `bearer ${TOKENS.dev}` } }),
      status: 202,
      outcome: 'invoked',
    },
    {
      name: 'a trailing slash',
      request: post({ path: '/tenants/dev/' }),
      status: 202,
      outcome: 'invoked',
    },
    { name: 'no body', request: post({ body: undefined }), status: 202, outcome: 'invoked' },
    {
      name: 'a body over the limit (even without a token)',
      request: post({ body: 'x'.repeat(1001), headers: {} }),
      status: 413,
      outcome: WakeOutcome.TooLarge,
    },
    {
      name: 'a body over the limit in UTF-8 bytes, not characters',
      request: post({ body: 'é'.repeat(501) }),
      status: 413,
      outcome: WakeOutcome.TooLarge,
    },
    { name: 'GET', request: post({ method: 'GET' }), status: 405, outcome: WakeOutcome.NotPost },
    {
      name: 'another path',
      request: post({ path: '/' }),
      status: 404,
      outcome: WakeOutcome.NoRoute,
    },
    {
      name: 'a nested path',
      request: post({ path: '/tenants/dev/x' }),
      status: 404,
      outcome: WakeOutcome.NoRoute,
    },
    { name: 'no token', request: post({ headers: {} }), status: 401, outcome: WakeOutcome.NoToken },
    {
      name: 'a Basic credential',
      request: post({ headers: { authorization: 'Basic ZGV2OnRva2Vu' } }),
      status: 401,
      outcome: WakeOutcome.NoToken,
    },
    {
      name: 'Bearer with no token',
      request: post({ headers: { authorization: 'Bearer ' } }),
      status: 401,
      outcome: WakeOutcome.NoToken,
    },
    {
      name: 'a token with a space in it',
      request: post({ headers: { authorization: 'Bearer a b' } }),
      status: 401,
      outcome: WakeOutcome.NoToken,
    },
    {
      name: 'a wrong token',
      request: post({ headers: { authorization: 'Bearer nope' } }),
      status: 403,
      outcome: WakeOutcome.WrongToken,
    },
    {
      name: "another tenant's token",
      request: post({ headers: { authorization: `Bearer ${TOKENS.prod}` } }),
      status: 403,
      outcome: WakeOutcome.WrongToken,
    },
    {
      name: "a prefix of the tenant's token",
      request: post({ headers: { authorization: `Bearer ${TOKENS.dev!.slice(0, 5)}` } }),
      status: 403,
      outcome: WakeOutcome.WrongToken,
    },
    {
      name: 'an unknown tenant',
      request: post({ path: '/tenants/ghost' }),
      status: 403,
      outcome: WakeOutcome.UnknownTenant,
    },
    {
      name: 'a name no tenant can have',
      request: post({ path: '/tenants/..' }),
      status: 403,
      outcome: WakeOutcome.UnknownTenant,
    },
  ];
  it.each(cases)('$name: $status', async ({ request, status, outcome }) => {
    const h = harness();
    const response = await h.handle(request);
    expect(response.statusCode).toBe(status);
    expect(h.logs).toEqual([expect.objectContaining({ outcome, status })]);
    expect(h.invoked).toEqual(status === 202 ? ['dev'] : []);
  });

  it('a wrong token and an unknown tenant get the very same answer', async () => {
    const h = harness();
    const wrong = await h.handle(post({ headers: { authorization: 'Bearer nope' } }));
    const unknown = await h.handle(post({ path: '/tenants/ghost' }));
    expect(wrong).toEqual(unknown);
  });

  it('a body over the limit is refused before the token is looked up', async () => {
    const h = harness();
    await h.handle(post({ body: 'x'.repeat(1001) }));
    expect(h.lookups).toEqual([]);
  });

  it('never logs a token, presented or expected', async () => {
    const h = harness();
    for (const authorization of [`Bearer ${TOKENS.dev}`, `Bearer ${TOKENS.prod}`, 'Bearer s3cret'])
      await h.handle(post({ headers: { authorization } }));
    await h.handle(
      post({ path: '/tenants/prod', headers: { authorization: `Bearer ${TOKENS.dev}` } }),
    );
    const text = JSON.stringify(h.logs);
    expect(h.logs).toHaveLength(4);
    for (const secret of [TOKENS.dev!, TOKENS.prod!, 's3cret']) expect(text).not.toContain(secret);
  });

  it('reads nothing of the body: any body under the limit is the same wake', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (body) => {
        const h = harness();
        expect((await h.handle(post({ body }))).statusCode).toBe(202);
        expect(h.invoked).toEqual(['dev']);
      }),
    );
  });

  it('a failed invoke answers 502 and the next batch invokes again', async () => {
    let fail = true;
    const h = harness({
      invoke: async () => {
        if (fail) throw new Error('throttled');
      },
    });
    expect((await h.handle(post())).statusCode).toBe(502);
    fail = false;
    expect((await h.handle(post())).statusCode).toBe(202);
    expect(h.logs.map((l) => l.outcome)).toEqual([WakeOutcome.InvokeFailed, WakeOutcome.Invoked]);
  });

  it('a failed token lookup answers 503 and invokes nothing', async () => {
    const h = harness({
      tokenOf: async () => {
        throw new Error('secrets unavailable');
      },
    });
    expect((await h.handle(post())).statusCode).toBe(503);
    expect(h.invoked).toEqual([]);
  });
});

describe('createWakeHandler: coalescing', () => {
  it('a burst of 500 batches, one a second apart or all at once, invokes once', async () => {
    const h = harness();
    for (let i = 0; i < 250; i += 1) {
      await h.handle(post());
      h.advance(1000);
    }
    await Promise.all(Array.from({ length: 250 }, () => h.handle(post())));
    expect(h.invoked).toEqual(['dev']);
    expect(h.logs.filter((l) => l.outcome === WakeOutcome.Coalesced)).toHaveLength(499);
  });

  it('each tenant is woken on its own', async () => {
    const h = harness();
    await h.handle(post());
    await h.handle(
      post({ path: '/tenants/prod', headers: { authorization: `Bearer ${TOKENS.prod}` } }),
    );
    await h.handle(post());
    expect(h.invoked).toEqual(['dev', 'prod']);
  });

  it('a refused request does not count as a change', async () => {
    const h = harness();
    await h.handle(post());
    h.advance(29_000);
    await h.handle(post({ headers: { authorization: 'Bearer nope' } }));
    h.advance(1_000);
    await h.handle(post());
    expect(h.invoked).toEqual(['dev', 'dev']);
  });
});
