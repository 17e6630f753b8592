/**
 * Shared by the sync and wake function unit tests: the sync function's environment for tenant
 * `dev`, a Lambda context, a kubeconfig source, a first pass's result, the function's
 * stdout/stderr captured per test, and a sync handler over in-memory clusters whose follow is
 * injected (the in-memory fakes hold no watches).
 */
import { afterEach, beforeEach, jest } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { createHandler, type SyncHandlerDeps } from '../../../functions/sync/handler.js';
import type { FollowOptions, FollowResult } from '../../../lib/engine/index.js';
import type { KubeconfigSource, PassResult } from '../../../lib/ports/index.js';
import { clusters, cm, TENANT } from '../engine/support.js';

export const NOW = 1_750_000_000_000;

/** The sync function's environment for tenant `dev`, as infra/ sets it. */
export const SYNC_ENV = {
  TENANT,
  TENANT_KUBECONFIG_SECRET_ID: 'tenantplane/tenants/dev/kubeconfig',
  HOST_KUBECONFIG_SECRET_ID: 'tenantplane/host/kubeconfig',
  SAFETY_MARGIN_MS: '10000',
};

/** A Lambda context of the sync function with `remainingMs` left. */
export function lambdaContext(remainingMs = 60_000): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'tenantplane-sync-dev',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:tenantplane-sync-dev',
    memoryLimitInMB: '512',
    awsRequestId: 'req-1',
    logGroupName: '/tenantplane/sync/dev',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A source whose kubeconfig origin names its role, as the handler's cluster choice reads it. */
const source: KubeconfigSource = {
  load: async (role) => ({ text: `kubeconfig-of-${role}`, origin: `${role}-secret` }),
};

/** A pass result with `writes` writes on the host, as the first pass of an invocation. */
export function passResult(writes: number, extra: Partial<PassResult> = {}): PassResult {
  return {
    passId: 'p',
    tenant: TENANT,
    dryRun: false,
    startedAt: new Date(NOW).toISOString(),
    finishedAt: new Date(NOW).toISOString(),
    durationMs: 120,
    complete: true,
    counts: { Create: writes, Update: 0, Delete: 0, Skip: 0 },
    objectsSeen: {},
    errors: [],
    requests: { tenant: { reads: 3, writes: 0 }, host: { reads: 3, writes } },
    decisions: [],
    ...extra,
  };
}

export interface CapturedOutput {
  /** Everything written to stdout and stderr since the test began or `clear()`. */
  text(): string;
  /** Every non-empty line written, parsed as JSON (all of them must be). */
  lines(): Array<Record<string, unknown>>;
  clear(): void;
}

/**
 * Captures stdout and stderr (the handlers log there, as in Lambda) in each test of the calling
 * `describe` (or file), restoring them after it.
 */
export function captureOutput(): CapturedOutput {
  let output: string[] = [];
  let spies: Array<{ mockRestore(): void }> = [];
  beforeEach(() => {
    output = [];
    const capture = (chunk: unknown) => {
      output.push(String(chunk));
      return true;
    };
    spies = [
      jest.spyOn(process.stdout, 'write').mockImplementation(capture),
      jest.spyOn(process.stderr, 'write').mockImplementation(capture),
    ];
  });
  afterEach(() => {
    for (const spy of spies) spy.mockRestore();
  });
  const text = () => output.join('');
  return {
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    clear: () => {
      output = [];
    },
  };
}

export interface FollowingHandlerOptions {
  env: Record<string, string>;
  /** What the injected follow returns. */
  followed: FollowResult;
  /** What the injected follow does before it returns (e.g. report a pass). */
  duringFollow?: (options: FollowOptions) => void;
  deps?: Partial<SyncHandlerDeps>;
}

/**
 * The sync handler over in-memory clusters (tenant ConfigMap `default/app`), the follow injected:
 * each follow it starts is recorded in `follows`.
 */
export function followingHandler(options: FollowingHandlerOptions) {
  const { tenantApi, hostApi } = clusters([cm('default', 'app')], []);
  const follows: FollowOptions[] = [];
  const handler = createHandler({
    env: options.env,
    kubeconfigSource: () => source,
    createClusterApi: (kubeconfig) => (kubeconfig.origin.includes('host') ? hostApi : tenantApi),
    runFollow: async (followOptions) => {
      follows.push(followOptions);
      options.duringFollow?.(followOptions);
      return options.followed;
    },
    createSinks: () => [],
    clock: { now: () => NOW },
    newPassId: () => 'pass-1',
    ...options.deps,
  });
  return { handler, follows, tenantApi };
}
