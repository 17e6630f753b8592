import type { Decision, DecisionAction, PassResult } from '../../../lib/ports/index.js';

export function decision(
  action: DecisionAction,
  name: string,
  overrides: Partial<Decision> = {},
): Decision {
  return {
    action,
    tenant: 'dev',
    kind: 'ConfigMap',
    apiVersion: 'v1',
    tenantRef: { namespace: 'default', name },
    hostRef: { namespace: 'tenant-dev', name: `${name}-x-default-x-dev` },
    reason: `${action} because ${name}`,
    passId: 'pass-1',
    dryRun: false,
    ...overrides,
  };
}

export function passResult(decisions: Decision[], overrides: Partial<PassResult> = {}): PassResult {
  const counts = { Create: 0, Update: 0, Delete: 0, Skip: 0 };
  for (const d of decisions) counts[d.action] += 1;
  return {
    passId: decisions[0]?.passId ?? 'pass-1',
    tenant: 'dev',
    dryRun: false,
    startedAt: '2030-01-01T00:00:00.000Z',
    finishedAt: '2030-01-01T00:00:01.500Z',
    durationMs: 1500,
    complete: true,
    counts,
    objectsSeen: { ConfigMap: decisions.length },
    errors: [],
    requests: { tenant: { reads: 2, writes: 0 }, host: { reads: 3, writes: decisions.length } },
    decisions,
    ...overrides,
  };
}
