/**
 * The handler publishes its metrics in the namespace infra/ sets (`POWERTOOLS_METRICS_NAMESPACE`:
 * a staged app's own, `<stage>/Tenantplane`), else the default `Tenantplane`, so two stages'
 * per-tenant metrics and alarms stay apart.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from '@jest/globals';
import { METRICS_NAMESPACE } from '../../../functions/sync/contract.js';
import { createHandler } from '../../../functions/sync/handler.js';

const namespaceOf = (env: Record<string, string | undefined>) => {
  const handler = createHandler({ env });
  handler.metrics.addMetric('PassComplete', MetricUnit.Count, 1);
  return handler.metrics.serializeMetrics()._aws.CloudWatchMetrics[0]!.Namespace;
};

describe('the metrics namespace', () => {
  it.each([
    [{ POWERTOOLS_METRICS_NAMESPACE: 'prod/Tenantplane' }, 'prod/Tenantplane'],
    [{ POWERTOOLS_METRICS_NAMESPACE: '  ' }, METRICS_NAMESPACE],
    [{}, METRICS_NAMESPACE],
  ])('with %j is %s', (env, namespace) => {
    expect(namespaceOf(env)).toBe(namespace);
  });
});
