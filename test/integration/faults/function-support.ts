/**
 * The sync function invoked in-process, as Lambda would, with a context whose remaining time runs
 * down for real, against kubeconfigs of the test's choosing (the fault proxy, a broken one) or
 * Secrets Manager (mocked by the caller). Its stdout/stderr is captured.
 */
import { createHandler, type SyncResult } from '../../../functions/sync/handler.js';
import type { KubeconfigText } from '../../../lib/ports/index.js';
import { captured } from '../support/captured-output.js';
import { syncFunctionContext } from '../support/lambda-context.js';

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
    handler(
      { tenant: options.tenant },
      syncFunctionContext(options.tenant, t0 + options.remainingMs),
    ),
  );
  const ms = Date.now() - t0;
  return error ? { error, ms, out } : { ...(result ? { result } : {}), ms, out };
}
