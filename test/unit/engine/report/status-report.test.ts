import { describe, expect, it } from '@jest/globals';
import { runPass } from '../../../../lib/engine/index.js';
import {
  DEFAULT_STATUS_REPORT_INTERVAL_MS,
  lastPassStatus,
  statusReportDue,
} from '../../../../lib/engine/report/status-report.js';
import { TENANT_CLUSTER } from '../../../../lib/ports/index.js';
import { CONFIGMAP, clusters, cm, TENANT } from '../support.js';

const MINUTE = 60_000;

function lastPass(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    passId: 'p',
    startedAt: '2030-01-01T00:00:00.000Z',
    finishedAt: '2030-01-01T00:00:01.000Z',
    durationMs: 1000,
    complete: true,
    incompleteReason: null,
    counts: { create: 0, update: 0, delete: 0, skip: 0 },
    errorCount: 0,
    errors: [],
    ...overrides,
  };
}

describe('statusReportDue', () => {
  const finished = Date.parse('2030-01-01T00:00:01.000Z');
  const cases: Array<{
    name: string;
    recorded: unknown;
    next: Record<string, unknown>;
    now: number;
    due: boolean;
  }> = [
    {
      name: 'nothing recorded yet',
      recorded: undefined,
      next: lastPass(),
      now: finished,
      due: true,
    },
    {
      name: 'same outcome, recorded a minute ago',
      recorded: lastPass(),
      next: lastPass({ passId: 'q', finishedAt: '2030-01-01T00:01:01.000Z' }),
      now: finished + MINUTE,
      due: false,
    },
    {
      name: 'same outcome, keys in the server order (sorted) and no incompleteReason',
      recorded: {
        ...lastPass({ counts: { create: 0, delete: 0, skip: 0, update: 0 } }),
        incompleteReason: undefined,
      },
      next: lastPass(),
      now: finished + MINUTE,
      due: false,
    },
    {
      name: 'same outcome, recorded longer ago than the interval',
      recorded: lastPass(),
      next: lastPass(),
      now: finished + DEFAULT_STATUS_REPORT_INTERVAL_MS,
      due: true,
    },
    {
      name: 'the previous pass decided something, this one nothing',
      recorded: lastPass({ counts: { create: 0, update: 1, delete: 0, skip: 0 } }),
      next: lastPass(),
      now: finished + MINUTE,
      due: false,
    },
    {
      name: 'this pass decided something',
      recorded: lastPass(),
      next: lastPass({ counts: { create: 0, update: 0, delete: 0, skip: 1 } }),
      now: finished + MINUTE,
      due: true,
    },
    {
      name: 'the previous pass was incomplete, this one is clean (recovered)',
      recorded: lastPass({ complete: false, incompleteReason: 'the pass deadline was reached' }),
      next: lastPass(),
      now: finished + MINUTE,
      due: true,
    },
    {
      name: 'this pass is incomplete',
      recorded: lastPass(),
      next: lastPass({
        complete: false,
        incompleteReason: 'the write budget of 1 write was spent',
      }),
      now: finished + MINUTE,
      due: true,
    },
    {
      name: 'this pass has errors',
      recorded: lastPass(),
      next: lastPass({ errorCount: 1, errors: ['ConfigMap a/b: nope (Invalid)'] }),
      now: finished + MINUTE,
      due: true,
    },
    {
      name: 'an unreadable recorded finishedAt',
      recorded: lastPass({ finishedAt: 'yesterday' }),
      next: lastPass(),
      now: finished + MINUTE,
      due: true,
    },
  ];
  it.each(cases)('$name -> due=$due', ({ recorded, next, now, due }) => {
    expect(statusReportDue(recorded, next, now)).toBe(due);
  });
});

describe('status.lastPass writes of a pass', () => {
  it('a steady state writes nothing at all until the report interval has passed', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = { now: () => now };
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    const run = () => runPass({ tenant: TENANT, tenantApi, hostApi, clock });

    const first = await run();
    expect(first.statusWritten).toBe(true);
    expect(hostApi.callsOf('patchStatus')).toHaveLength(1);

    now += MINUTE;
    const writesBefore = hostApi.requestCount().writes;
    for (let i = 0; i < 3; i++) {
      now += MINUTE;
      const steady = await run();
      expect(steady.statusWritten).toBe(false);
    }
    expect(hostApi.requestCount().writes - writesBefore).toBe(0);
    // The recorded pass is the one that acted.
    const recorded = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as {
      lastPass: { passId: string };
    };
    expect(recorded.lastPass.passId).toBe(first.passId);

    now += DEFAULT_STATUS_REPORT_INTERVAL_MS;
    const heartbeat = await run();
    expect(heartbeat.statusWritten).toBe(true);
    const status = hostApi.peek(TENANT_CLUSTER, undefined, TENANT)?.status as {
      lastPass: { passId: string };
    };
    expect(status.lastPass.passId).toBe(heartbeat.passId);
  });

  it('statusReportIntervalMs 0 writes after every pass', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    for (let i = 0; i < 3; i++) {
      await runPass({ tenant: TENANT, tenantApi, hostApi, statusReportIntervalMs: 0 });
    }
    expect(hostApi.callsOf('patchStatus')).toHaveLength(3);
  });
});

describe('lastPassStatus', () => {
  it('writes the counts in lowerCamelCase', async () => {
    const { tenantApi, hostApi } = clusters([cm('default', 'a')], [], { toHost: [CONFIGMAP] });
    const result = await runPass({ tenant: TENANT, tenantApi, hostApi, dryRun: true });
    expect(lastPassStatus(result).counts).toEqual({
      create: 1,
      update: 0,
      delete: 0,
      skip: 0,
      alreadyGone: 0,
    });
  });
});
