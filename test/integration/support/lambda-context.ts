/**
 * The Lambda context of tenant `tenant`'s sync function for an invocation that ends at `endsAt`
 * (epoch ms): its remaining time runs down for real. Free of jest, so the benches use it too.
 */
import type { Context } from 'aws-lambda';

export function syncFunctionContext(tenant: string, endsAt: number): Context {
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
