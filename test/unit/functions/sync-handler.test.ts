/**
 * The sync handler with injected fakes: event validation, tenant refusal, kubeconfig failures
 * before any write, the pass budget from the Lambda context, metrics (EMF) and the error path.
 * The pass itself is the real engine over in-memory clusters.
 */
import { describe, expect, it } from '@jest/globals';
import { createHandler, type SyncHandlerDeps } from '../../../functions/sync/handler.js';
import { createClusterApi } from '../../../lib/adapters/kube/cluster-client.js';
import { ClusterUnreachableError } from '../../../lib/engine/errors.js';
import { InSyncMemo, type PassOptions, runPass } from '../../../lib/engine/index.js';
import {
  ClusterError,
  type ClusterRole,
  type KubeconfigSource,
  type KubeconfigText,
  type PassResult,
  TENANT_CLUSTER,
} from '../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, HOST_NS, hn, TENANT } from '../engine/support.js';
import type { MemoryCluster } from '../fakes/memory-cluster.js';
import { captureOutput, lambdaContext, NOW, SYNC_ENV } from './support.js';

const CANARY = 'canary-7f3a9c-do-not-log';

const ENV = {
  ...SYNC_ENV,
  SAFETY_MARGIN_MS: '5000',
  MAX_WRITES: '100',
  PAGE_SIZE: '50',
};

/** A source handing out fixed texts (origin = the secret id), or failing for a role. */
class FakeSource implements KubeconfigSource {
  readonly loads: ClusterRole[] = [];
  constructor(
    private readonly texts: Partial<Record<ClusterRole, string>>,
    private readonly failures: Partial<Record<ClusterRole, Error>> = {},
  ) {}
  async load(role: ClusterRole): Promise<KubeconfigText> {
    this.loads.push(role);
    const failure = this.failures[role];
    if (failure) throw failure;
    const origin =
      role === 'tenant' ? ENV.TENANT_KUBECONFIG_SECRET_ID : ENV.HOST_KUBECONFIG_SECRET_ID;
    return { text: this.texts[role] ?? `kubeconfig-of-${role} ${CANARY}`, origin };
  }
}

const output = captureOutput();
/** Every captured line parsed as JSON (all of them must be). */
const jsonLines = output.lines;

function setup(options: { source?: FakeSource; deps?: Partial<SyncHandlerDeps> } = {}) {
  const { tenantApi, hostApi } = clusters([cm('default', 'app'), cm('web', 'settings')], []);
  const source = options.source ?? new FakeSource({});
  const passes: PassOptions[] = [];
  const handler = createHandler({
    env: ENV,
    kubeconfigSource: () => source,
    createClusterApi: (kubeconfig) => (kubeconfig.origin.includes('host') ? hostApi : tenantApi),
    runPass: (passOptions) => {
      passes.push(passOptions);
      return runPass(passOptions);
    },
    createSinks: () => [],
    clock: { now: () => NOW },
    newPassId: () => 'pass-1',
    ...options.deps,
  });
  return { handler, source, tenantApi, hostApi, passes };
}

const writes = (api: MemoryCluster) => api.requestCount().writes;

describe('sync handler: accepted events', () => {
  it('runs one pass for the schedule input and reports it', async () => {
    const { handler, hostApi, passes } = setup();

    const { path, pathReason, ...result } = await handler({ tenant: 'dev' }, lambdaContext());

    expect(result).toEqual({
      passId: 'pass-1',
      tenant: 'dev',
      dryRun: false,
      full: false,
      complete: true,
      counts: { Create: 2, Update: 0, Delete: 0, Skip: 0 },
      failed: { Create: 0, Update: 0, Delete: 0, Skip: 0 },
      objectErrors: 0,
      objectsSeen: 2,
      durationMs: expect.any(Number),
    });
    // A first pass has no resume point: it lists in full (and may say why).
    expect(path).toBe('full');
    expect(pathReason === undefined || typeof pathReason === 'string').toBe(true);
    expect(
      hostApi
        .objects()
        .filter((o) => o.metadata.namespace === HOST_NS)
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual([hn('default', 'app'), hn('web', 'settings')].sort());
    // The deadline is now + remaining time - safety margin; the budget comes from the env; half
    // the margin is the reserve for what follows the work (status, Events, the lease release).
    expect(passes[0]!.budget).toEqual({
      deadline: NOW + 60_000 - 5000,
      maxWrites: 100,
      pageSize: 50,
      reportReserveMs: 2500,
    });
    expect(passes[0]!.dryRun).toBe(false);
    // The schedule's input never asks for a full pass.
    expect(passes[0]!.path).toBe('auto');
    expect(passes[0]!.passId).toBe('pass-1');
  });

  it('hands every pass of a warm container the same in-sync memo; full passes fill it', async () => {
    const { handler, passes } = setup();
    await handler({ tenant: 'dev' }, lambdaContext());
    await handler({ tenant: 'dev', full: true }, lambdaContext());
    const [first, second] = passes.map((p) => p.memo);
    expect(first).toBeInstanceOf(InSyncMemo);
    expect(second).toBe(first);
    // The second (full) pass found both copies the first made in sync.
    expect(second?.size).toBe(2);
  });

  it('accepts a SyncRequested EventBridge event and a direct dry-run invoke', async () => {
    const { handler, hostApi, passes } = setup();

    await handler(
      {
        version: '0',
        id: 'e-1',
        'detail-type': 'SyncRequested',
        source: 'tenantplane.cli',
        account: '123456789012',
        time: '2025-06-15T12:00:00Z',
        region: 'eu-west-1',
        resources: [],
        detail: { tenant: 'dev', dryRun: true },
      },
      lambdaContext(),
    );
    expect(passes[0]!.dryRun).toBe(true);
    expect(writes(hostApi)).toBe(0);

    await handler({ tenant: 'dev', dryRun: false }, lambdaContext());
    expect(passes[1]!.dryRun).toBe(false);
    expect(writes(hostApi)).toBeGreaterThan(0);
  });

  it('runs a full pass when the payload asks for one: direct invoke and SyncRequested', async () => {
    const { handler, passes } = setup();

    const direct = await handler({ tenant: 'dev', full: true }, lambdaContext());
    await handler(
      { 'detail-type': 'SyncRequested', detail: { tenant: 'dev', full: true } },
      lambdaContext(),
    );
    await handler({ tenant: 'dev', full: false }, lambdaContext());

    expect(passes.map((p) => p.path)).toEqual(['full', 'full', 'auto']);
    expect(direct).toMatchObject({ full: true, path: 'full' });
    const starting = jsonLines().filter((l) => l.message === 'pass starting');
    expect(starting.map((l) => l.full)).toEqual([true, true, false]);
  });

  it('logs JSON lines with the passId as correlation id, and the decisions', async () => {
    const { handler } = setup();

    await handler({ tenant: 'dev' }, lambdaContext());

    const lines = jsonLines();
    const logs = lines.filter((l) => typeof l.level === 'string');
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).toMatchObject({ service: 'tenantplane-sync', tenant: 'dev', passId: 'pass-1' });
      expect(line.correlation_id).toBe('pass-1');
      expect(line.function_request_id).toBe('req-1');
    }
    expect(logs.map((l) => l.message)).toContain('pass starting');
    const decisions = logs.filter((l) => l.message === 'decision');
    expect(decisions).toHaveLength(2);
    expect(decisions.find((d) => d.tenantName === 'app')).toMatchObject({
      level: 'INFO',
      type: 'decision',
      action: 'Create',
      kind: 'ConfigMap',
      apiVersion: 'v1',
      tenantNamespace: 'default',
      hostNamespace: HOST_NS,
      hostName: hn('default', 'app'),
      reason: expect.any(String),
      dryRun: false,
    });
    expect(logs.find((l) => l.message === 'pass finished')).toMatchObject({
      type: 'pass',
      complete: true,
      creates: 2,
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toContain(CANARY);
  });

  it('publishes EMF metrics with the tenant as the only dimension', async () => {
    const { handler, tenantApi } = setup();
    tenantApi.seed(cm('default', 'third'));

    await handler({ tenant: 'dev' }, lambdaContext());

    const emf = jsonLines().filter((l) => '_aws' in l);
    expect(emf).toHaveLength(1);
    const [metrics] = emf;
    const directive = (metrics!._aws as { CloudWatchMetrics: Array<Record<string, unknown>> })
      .CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe('Tenantplane');
    expect(directive.Dimensions).toEqual([['tenant']]);
    expect(metrics).toMatchObject({
      tenant: 'dev',
      Creates: 3,
      Updates: 0,
      Deletes: 0,
      Skips: 0,
      FailedWrites: 0,
      AlreadyGone: 0,
      ObjectErrors: 0,
      ObjectsSeen: 3,
      PassComplete: 1,
      PassIncomplete: 0,
      PassDurationMs: expect.any(Number),
      // A first pass lists in full: no resume point yet.
      ResumeHit: 0,
    });
    expect(metrics).not.toHaveProperty('service');
  });

  it.each([
    ['resumed', undefined, 1],
    ['full', 'ConfigMap: the resume failed: 410 Gone', 0],
    ['resync', 'ConfigMap: the resync period (60m) passed', 0],
    [undefined, undefined, 0],
  ] as const)(
    'publishes ResumeHit for a %s pass and returns its path',
    async (path, pathReason, hit) => {
      const { handler } = setup({
        deps: {
          runPass: async (options) => {
            const { path: _, pathReason: __, ...result } = await runPass(options);
            return { ...result, ...(path ? { path } : {}), ...(pathReason ? { pathReason } : {}) };
          },
        },
      });

      const summary = await handler({ tenant: 'dev' }, lambdaContext());

      const lines = jsonLines();
      expect(lines.find((l) => '_aws' in l)).toMatchObject({ tenant: 'dev', ResumeHit: hit });
      const directive = (
        lines.find((l) => '_aws' in l)!._aws as {
          CloudWatchMetrics: Array<{ Metrics: Array<{ Name: string }> }>;
        }
      ).CloudWatchMetrics[0]!;
      expect(directive.Metrics.map((m) => m.Name)).toContain('ResumeHit');
      expect(summary.path).toBe(path);
      expect(summary.pathReason).toBe(pathReason);
    },
  );

  it('logs the path the pass took, and why, in the pass line', async () => {
    const { handler } = setup();

    const summary = await handler({ tenant: 'dev', full: true }, lambdaContext());

    const passLine = jsonLines().find((l) => l.message === 'pass finished')!;
    expect(passLine.path).toBe('full');
    expect(summary.path).toBe('full');
    expect(passLine.pathReason).toBe(summary.pathReason);
  });

  it('counts per-object errors and still succeeds', async () => {
    const { handler, hostApi } = setup();
    hostApi.failWhen((call) =>
      call.method === 'create' && call.name === hn('web', 'settings')
        ? new ClusterError('Invalid', 'ConfigMap is invalid: data: too long', { status: 422 })
        : undefined,
    );

    const result = await handler({ tenant: 'dev' }, lambdaContext());

    expect(result.objectErrors).toBe(1);
    // The refused create is counted apart from the create made.
    expect(result.counts.Create).toBe(1);
    expect(result.failed?.Create).toBe(1);
    const lines = jsonLines();
    const warning = lines.find((l) => l.message === 'object error');
    expect(warning).toMatchObject({
      level: 'WARN',
      kind: 'ConfigMap',
      tenantNamespace: 'web',
      tenantName: 'settings',
      error: expect.stringContaining('too long'),
    });
    expect(lines.find((l) => '_aws' in l)).toMatchObject({
      Creates: 1,
      FailedWrites: 1,
      ObjectErrors: 1,
      PassComplete: 1,
    });
  });

  it('reports an incomplete pass (write budget) as PassIncomplete', async () => {
    const { handler } = setup({ deps: { env: { ...ENV, MAX_WRITES: '1' } } });

    const result = await handler({ tenant: 'dev' }, lambdaContext());

    expect(result.complete).toBe(false);
    expect(result.incompleteReason).toEqual(expect.any(String));
    expect(jsonLines().find((l) => '_aws' in l)).toMatchObject({
      PassComplete: 0,
      PassIncomplete: 1,
    });
  });
});

describe('sync handler: refusals and failures', () => {
  const invalid: Array<[string, unknown, RegExp]> = [
    ['null', null, /the event is null, not an object/],
    ['a string', 'dev', /the event is a string/],
    ['an empty object', {}, /tenant is missing/],
    ['a numeric tenant', { tenant: 7 }, /tenant must be a non-empty string, got a number/],
    ['an unknown field', { tenant: 'dev', force: true }, /unexpected field force/],
    ['a non-boolean dryRun', { tenant: 'dev', dryRun: 'yes' }, /dryRun must be a boolean/],
    ['a non-boolean full', { tenant: 'dev', full: 'yes' }, /full must be a boolean, got a string/],
    [
      'a non-boolean detail.full',
      { 'detail-type': 'SyncRequested', detail: { tenant: 'dev', full: 1 } },
      /detail.full must be a boolean, got a number/,
    ],
    [
      'another detail-type',
      { 'detail-type': 'Scheduled Event', detail: {} },
      /detail-type "Scheduled Event" is not "SyncRequested"/,
    ],
    [
      'an event without detail.tenant',
      { 'detail-type': 'SyncRequested', detail: {} },
      /detail.tenant is missing/,
    ],
  ];
  it.each(invalid)(
    'rejects %s with a clear validation error, touching nothing',
    async (_, event, message) => {
      const { handler, source, hostApi } = setup();

      await expect(handler(event, lambdaContext())).rejects.toThrow(message);

      expect(source.loads).toEqual([]);
      expect(hostApi.requestCount()).toEqual({ reads: 0, writes: 0 });
      const failure = jsonLines().find((l) => l.message === 'sync failed');
      expect(failure).toMatchObject({ level: 'ERROR', errorName: 'InvalidSyncEventError' });
    },
  );

  it('refuses an event for another tenant', async () => {
    const { handler, source, hostApi } = setup();

    await expect(handler({ tenant: 'prod' }, lambdaContext())).rejects.toThrow(
      'this function syncs tenant "dev" and refuses an event for tenant "prod"',
    );
    await expect(
      handler({ 'detail-type': 'SyncRequested', detail: { tenant: 'prod' } }, lambdaContext()),
    ).rejects.toThrow(/refuses an event for tenant "prod"/);
    expect(source.loads).toEqual([]);
    expect(hostApi.requestCount()).toEqual({ reads: 0, writes: 0 });
  });

  it('fails before any write when a secret is missing, naming the secret', async () => {
    const source = new FakeSource(
      {},
      {
        host: new Error(
          "ResourceNotFoundException: Secrets Manager can't find the specified secret.",
        ),
      },
    );
    const { handler, hostApi, tenantApi, passes } = setup({ source });

    await expect(handler({ tenant: 'dev' }, lambdaContext())).rejects.toThrow(
      "host kubeconfig from secret tenantplane/host/kubeconfig: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
    );
    expect(passes).toEqual([]);
    expect(writes(hostApi) + writes(tenantApi)).toBe(0);
  });

  it('fails before any write on a malformed kubeconfig, never quoting it', async () => {
    const source = new FakeSource({ tenant: `apiVersion: v1\nclusters: [\n  ${CANARY}: {{{` });
    const { handler, hostApi, passes } = setup({
      source,
      deps: { createClusterApi: (kubeconfig) => createClusterApi(kubeconfig) },
    });

    const attempt = handler({ tenant: 'dev' }, lambdaContext());

    await expect(attempt).rejects.toThrow(
      /^tenant kubeconfig from secret tenantplane\/tenants\/dev\/kubeconfig: /,
    );
    const error = (await attempt.catch((e: unknown) => e)) as Error;
    expect(error.message).not.toContain(CANARY);
    expect(error.cause).toBeUndefined();
    expect(passes).toEqual([]);
    expect(writes(hostApi)).toBe(0);
    expect(output.text()).not.toContain(CANARY);
    expect(jsonLines().find((l) => l.message === 'sync failed')).toMatchObject({
      errorName: 'KubeconfigLoadError',
    });
  });

  it('fails before any write on a kubeconfig without a usable context', async () => {
    const noContext = [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]',
      `users: [{name: ${CANARY}, user: {token: ${CANARY}}}]`,
      'contexts: []',
    ].join('\n');
    const source = new FakeSource({ host: noContext });
    const { handler, hostApi, passes } = setup({
      source,
      deps: {
        createClusterApi: (kubeconfig) =>
          kubeconfig.origin.includes('host')
            ? createClusterApi(kubeconfig)
            : clusters([], []).tenantApi,
      },
    });

    const attempt = handler({ tenant: 'dev' }, lambdaContext());

    await expect(attempt).rejects.toThrow(
      /^host kubeconfig from secret tenantplane\/host\/kubeconfig: .*context/,
    );
    expect(passes).toEqual([]);
    expect(writes(hostApi)).toBe(0);
    expect(output.text()).not.toContain(CANARY);
  });

  it('fails the invocation on a pass-level failure and logs it without its cause', async () => {
    const { handler } = setup({
      deps: {
        runPass: async (): Promise<PassResult> => {
          const transport = new Error('connect ECONNREFUSED 127.0.0.1:6443', {
            cause: new Error(`request options ${CANARY}`),
          });
          throw new ClusterUnreachableError('host', { cause: transport });
        },
      },
    });

    const attempt = handler({ tenant: 'dev' }, lambdaContext());

    await expect(attempt).rejects.toThrow(
      'the host cluster is unreachable: connect ECONNREFUSED 127.0.0.1:6443',
    );
    const failure = jsonLines().find((l) => l.message === 'sync failed');
    expect(failure).toMatchObject({
      level: 'ERROR',
      errorName: 'ClusterUnreachableError',
      tenant: 'dev',
      passId: 'pass-1',
      error: {
        name: 'ClusterUnreachableError',
        message: 'the host cluster is unreachable: connect ECONNREFUSED 127.0.0.1:6443',
      },
    });
    expect((failure!.error as Record<string, unknown>).cause).toBeUndefined();
    expect(output.text()).not.toContain(CANARY);
  });

  it('an unreachable tenant cluster sets Ready False on the TenantCluster; a dry run writes nothing', async () => {
    const { handler, tenantApi, hostApi } = setup();
    tenantApi.failWhen(() => new ClusterError('Transport', 'cannot reach https://t: ECONNREFUSED'));

    await expect(handler({ tenant: 'dev', dryRun: true }, lambdaContext())).rejects.toThrow(
      'the tenant cluster is unreachable',
    );
    expect(writes(hostApi)).toBe(0);

    await expect(handler({ tenant: 'dev' }, lambdaContext())).rejects.toThrow(
      'the tenant cluster is unreachable: cannot reach https://t: ECONNREFUSED',
    );
    const tc = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)!;
    const conditions = (tc.status as { conditions: Array<Record<string, unknown>> }).conditions;
    expect(conditions.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'TenantClusterUnreachable',
      lastTransitionTime: new Date(NOW).toISOString().replace('.000Z', 'Z'),
    });
  });

  it('fails clearly when the function is misconfigured', async () => {
    const { handler } = setup({ deps: { env: { ...ENV, TENANT: undefined, PAGE_SIZE: 'many' } } });
    await expect(handler({ tenant: 'dev' }, lambdaContext())).rejects.toThrow(
      'sync function misconfigured: environment variable TENANT is not set',
    );
    const other = setup({ deps: { env: { ...ENV, PAGE_SIZE: 'many' } } }).handler;
    await expect(other({ tenant: 'dev' }, lambdaContext())).rejects.toThrow(
      'environment variable PAGE_SIZE must be an integer >= 1, got "many"',
    );
  });

  it('resets per-invocation keys between invocations', async () => {
    let n = 0;
    const { handler } = setup({ deps: { newPassId: () => `pass-${++n}` } });
    await handler({ tenant: 'dev' }, lambdaContext());
    output.clear();
    await expect(handler({ tenant: 'nope' }, lambdaContext())).rejects.toThrow(/refuses/);
    const failure = jsonLines().find((l) => l.message === 'sync failed')!;
    expect(failure.passId).toBeUndefined();
    expect(CONFIGMAP.kind).toBe('ConfigMap');
  });
});
