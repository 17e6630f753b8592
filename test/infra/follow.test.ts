/**
 * Follow mode in the infrastructure: a followed tenant's function gets its quiet seconds in the
 * environment, a timeout that leaves room to follow, and asynchronous invocation settings that
 * drop a tick arriving while it follows instead of queueing it; an unfollowed tenant keeps what
 * it had. The fleet dashboard shows the follow metrics the handler publishes.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Capture, Match, type Template } from 'aws-cdk-lib/assertions';
import { SyncMetric } from '../../functions/sync/contract.js';
import { parseTenantsConfig } from '../../infra/config.js';
import { DEFAULT_FOLLOW_TIMEOUT_SECONDS } from '../../infra/config-rules.js';
import { tenantSearch } from '../../infra/constructs/fleet-dashboard.js';
import { FLEET_DASHBOARD_NAME } from '../../infra/names.js';
import {
  handlerBundleDir,
  hostSecretOf,
  logicalIdOf,
  render,
  synth,
  tenantsYaml,
} from './support.js';

interface Widget {
  x: number;
  width: number;
  properties: {
    title?: string;
    view?: string;
    metrics?: Array<[{ expression: string; label?: string; yAxis?: string }]>;
    table?: { summaryColumns?: string[] };
  };
}

const YAML = tenantsYaml([
  // Followed, with the function timeout left to the follow default.
  `{name: prod, schedule: "rate(1 minute)", tenantSecretId: tp/tenants/prod, hostSecretId: ${hostSecretOf('prod')}, follow: {quietSeconds: 30}}`,
  // Followed, with its own timeout.
  `{name: qa, schedule: "rate(1 minute)", tenantSecretId: tp/tenants/qa, hostSecretId: ${hostSecretOf('qa')}, follow: {quietSeconds: 20}, budget: {timeoutSeconds: 300}}`,
  // Not followed.
  `{name: dev, schedule: "rate(5 minutes)", tenantSecretId: tp/tenants/dev, hostSecretId: ${hostSecretOf('dev')}}`,
]);

let tenants: Template;
let widgets: Widget[];

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(YAML), {
    bundleDir: await handlerBundleDir(),
  });
  tenants = template(tp.shards[0]!);
  const body = new Capture();
  template(tp.shared).hasResourceProperties('AWS::CloudWatch::Dashboard', {
    DashboardName: FLEET_DASHBOARD_NAME,
    DashboardBody: body,
  });
  widgets = (JSON.parse(render(body.asObject())) as { widgets: Widget[] }).widgets;
});

const functionId = (tenant: string) =>
  logicalIdOf(tenants, 'AWS::Lambda::Function', { FunctionName: `tenantplane-sync-${tenant}` });

describe('a followed tenant', () => {
  it('gets follow.quietSeconds in the environment; an unfollowed tenant does not', () => {
    for (const [tenant, quiet] of [
      ['prod', '30'],
      ['qa', '20'],
    ] as const) {
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `tenantplane-sync-${tenant}`,
        Environment: { Variables: Match.objectLike({ FOLLOW_QUIET_SECONDS: quiet }) },
      });
    }
    tenants.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'tenantplane-sync-dev',
      Environment: { Variables: Match.objectLike({ FOLLOW_QUIET_SECONDS: Match.absent() }) },
    });
  });

  it('gets a timeout that leaves room to follow: its own, else the follow default', () => {
    expect(DEFAULT_FOLLOW_TIMEOUT_SECONDS).toBe(900);
    for (const [tenant, timeout] of [
      ['prod', 900],
      ['qa', 300],
      ['dev', 120],
    ] as const) {
      tenants.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: `tenantplane-sync-${tenant}`,
        Timeout: timeout,
        ReservedConcurrentExecutions: 1,
      });
    }
  });

  it('drops a tick that arrives while it is followed: no retry, 60 s of age at most', () => {
    for (const tenant of ['prod', 'qa']) {
      tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionId(tenant) },
        Qualifier: '$LATEST',
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 60,
      });
    }
    // Unfollowed: two timeouts of age, as before.
    tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('dev') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 240,
    });
    // The scheduler retries only a tick it could not hand to Lambda (no pass ran), for a minute.
    tenants.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 1 },
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [functionId('prod'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 60 },
      }),
    });
  });

  it('sends no dropped tick to the dead-letter queue, and does not alarm on drops or throttles', () => {
    for (const tenant of ['prod', 'qa']) {
      tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionId(tenant) },
        DestinationConfig: Match.absent(),
      });
      for (const what of ['events-dropped', 'throttles'])
        expect(
          tenants.findResources('AWS::CloudWatch::Alarm', {
            Properties: { AlarmName: `tenantplane-${tenant}-${what}` },
          }),
        ).toEqual({});
    }
    tenants.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('dev') },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    tenants.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'tenantplane-dev-throttles',
    });
  });
});

describe('the fleet dashboard', () => {
  const byTitle = (title: string) => {
    const found = widgets.filter((w) => w.properties.title === title);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const series = (w: Widget) =>
    (w.properties.metrics ?? []).map(([m]) => [m.expression, m.label, m.yAxis ?? 'left']);

  it('shows seconds followed, changes converged and ticks dropped, fleet totals', () => {
    const w = byTitle('Followed time and changes converged by follows');
    expect(series(w)).toEqual([
      [
        `SUM(${tenantSearch(SyncMetric.FollowedSeconds, 'Sum')})`,
        'seconds followed (all tenants)',
        'left',
      ],
      [
        `SUM(${tenantSearch(SyncMetric.FollowChanges, 'Sum')})`,
        'changes converged by follows',
        'right',
      ],
      [
        `SUM(${tenantSearch(SyncMetric.TicksDropped, 'Sum')})`,
        'ticks dropped (lease held by another follower)',
        'right',
      ],
    ]);
    expect(w).toMatchObject({ x: 0, width: 8, properties: { view: 'timeSeries' } });
  });

  it('shows the change latency: mean per-invocation p50, highest per-invocation p99', () => {
    const w = byTitle('Change latency of follows (ms): per-invocation p50 and p99');
    expect(series(w)).toEqual([
      [
        `AVG(${tenantSearch(SyncMetric.ChangeLatencyP50, 'Average')})`,
        'p50 (mean of tenants)',
        'left',
      ],
      [
        `MAX(${tenantSearch(SyncMetric.ChangeLatencyP99, 'Maximum')})`,
        'p99 (highest invocation)',
        'left',
      ],
    ]);
    expect(w).toMatchObject({ x: 8, width: 8 });
  });

  it('lists the tenants followed longest', () => {
    const w = byTitle('Top 10 tenants by seconds followed');
    expect(series(w)).toEqual([
      [
        `SORT(${tenantSearch(SyncMetric.FollowedSeconds, 'Sum')}, SUM, DESC, 10)`,
        `\${PROP('Dim.tenant')}`,
        'left',
      ],
    ]);
    expect(w).toMatchObject({ x: 16, width: 8, properties: { view: 'table' } });
    expect(w.properties.table?.summaryColumns).toEqual(['SUM']);
  });
});
