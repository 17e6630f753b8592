/**
 * The sync function invoked in-process, as Lambda would, with a context whose remaining time runs
 * down for real, against kubeconfigs of the test's choosing (the fault proxy, a broken one) or
 * Secrets Manager (mocked by the caller). Its stdout/stderr is captured.
 */
import type { Context } from 'aws-lambda';
import { createHandler, type SyncResult } from '../../../functions/sync/handler.js';
import type { KubeconfigText } from '../../../lib/ports/index.js';
import { captured } from '../support/captured-output.js';

export interface Invocation {
  result?: SyncResult;
  error?: Error;
  /** Wall time of the invocation. */
  ms: number;
  /** Everything the function wrote (JSON lines). */
  out: string;
}

export interface InvokeOptions {
  tenant: string;
  /** The two kubeconfigs; omitted: the function's own Secrets Manager source (mock it). */
  kubeconfigs?: { tenant: KubeconfigText; host: KubeconfigText };
  /** The invocation's time limit (getRemainingTimeInMillis at the start). */
  remainingMs: number;
  env?: Record<string, string>;
}

function context(tenant: string, endsAt: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `tenantplane-sync-${tenant}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:tenantplane-sync-${tenant}`,
    memoryLimitInMB: '512',
    awsRequestId: `req-${tenant}-${endsAt}`,
    logGroupName: `/tenantplane/sync/${tenant}`,
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => endsAt - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Invokes a fresh handler once (a cold start: no cached settings or secrets). */
export async function invokeSync(options: InvokeOptions): Promise<Invocation> {
  const { kubeconfigs } = options;
  const handler = createHandler({
    env: {
      TENANT: options.tenant,
      TENANT_KUBECONFIG_SECRET_ID: `tenantplane/${options.tenant}/tenant`,
      HOST_KUBECONFIG_SECRET_ID: `tenantplane/${options.tenant}/host`,
      ...options.env,
    },
    ...(kubeconfigs
      ? { kubeconfigSource: () => ({ load: async (role) => kubeconfigs[role] }) }
      : {}),
  });
  const t0 = Date.now();
  const { out, result, error } = await captured(() =>
    handler({ tenant: options.tenant }, context(options.tenant, t0 + options.remainingMs)),
  );
  const ms = Date.now() - t0;
  return error ? { error, ms, out } : { ...(result ? { result } : {}), ms, out };
}
