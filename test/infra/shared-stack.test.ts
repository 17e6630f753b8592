/**
 * The shared stack: the SyncRequested bus, the alarm topic and the fleet dashboard, asserted
 * widget by widget (titles, SEARCH expressions over the `tenant` dimension, statistics, layout).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Capture, Match, type Template } from 'aws-cdk-lib/assertions';
import { METRICS_NAMESPACE, SyncMetric } from '../../functions/sync/contract.js';
import { parseTenantsConfig } from '../../infra/config.js';
import {
  DASHBOARD_PERIOD_SECONDS,
  FAILED_INVOCATIONS_SEARCH,
  tenantSearch,
} from '../../infra/constructs/fleet-dashboard.js';
import { FLEET_DASHBOARD_NAME } from '../../infra/names.js';
import {
  handlerBundleDir,
  logicalIdOf,
  manyTenants,
  render,
  synth,
  TWO_TENANTS_YAML,
} from './support.js';

interface Widget {
  type: 'metric' | 'text';
  x: number;
  y: number;
  width: number;
  height: number;
  properties: {
    title?: string;
    markdown?: string;
    view?: string;
    stacked?: boolean;
    period?: number;
    yAxis?: { left?: { min?: number; max?: number } };
    metrics?: Array<[{ expression: string; label?: string; period?: number }]>;
    table?: { summaryColumns?: string[]; showTimeSeriesData?: boolean };
  };
}

let shared: Template;
let tenants: Template;
let widgets: Widget[];
let body: string;

/** The dashboard body of a synthesized shared stack, rendered to its JSON text. */
function dashboardBody(template: Template): string {
  const captured = new Capture();
  template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
    DashboardName: FLEET_DASHBOARD_NAME,
    DashboardBody: captured,
  });
  return render(captured.asObject());
}

beforeAll(async () => {
  const { tp, template } = synth(parseTenantsConfig(TWO_TENANTS_YAML), {
    bundleDir: await handlerBundleDir(),
  });
  shared = template(tp.shared);
  tenants = template(tp.shards[0]!);
  body = dashboardBody(shared);
  widgets = (JSON.parse(body) as { widgets: Widget[] }).widgets;
});

const byTitle = (title: string) => {
  const found = widgets.filter((w) => w.properties.title === title);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const expressions = (w: Widget) => (w.properties.metrics ?? []).map(([m]) => m.expression);
const labels = (w: Widget) => (w.properties.metrics ?? []).map(([m]) => m.label);

describe('shared stack', () => {
  it('holds the custom bus and the alarm topic', () => {
    shared.resourceCountIs('AWS::Events::EventBus', 1);
    shared.hasResourceProperties('AWS::Events::EventBus', { Name: 'tenantplane' });
    shared.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'tp-alarms' });
    // Where it has always been: another logical id would replace the named topic on update.
    expect(logicalIdOf(shared, 'AWS::SNS::Topic', { TopicName: 'tp-alarms' })).toMatch(
      /^AlarmTopic[0-9A-F]{8}$/,
    );
  });

  it('holds the one fleet dashboard of the app; tenant stacks hold none', () => {
    shared.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    shared.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: FLEET_DASHBOARD_NAME,
      DashboardBody: Match.anyValue(),
    });
    tenants.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
    expect(JSON.parse(body)).toMatchObject({ start: '-P1D' });
  });

  it('is the same for 2 tenants or 43 in 3 stacks: SEARCH expressions, no list of tenants', async () => {
    const { tp, template } = synth(manyTenants(43), { bundleDir: await handlerBundleDir() });
    expect(dashboardBody(template(tp.shared))).toBe(body);
    expect(body).not.toContain('staging');
    expect(body.length).toBeLessThan(10_000);
  });
});

describe('fleet dashboard', () => {
  it('shows passes over time: complete, incomplete and failed invocations', () => {
    const w = byTitle('Passes: complete, incomplete, failed');
    expect(expressions(w)).toEqual([
      `SUM(SEARCH('{Tenantplane,tenant} MetricName="PassComplete"', 'Sum', 300))`,
      `SUM(SEARCH('{Tenantplane,tenant} MetricName="PassIncomplete"', 'Sum', 300))`,
      `SUM(SEARCH('{AWS/Lambda,FunctionName} MetricName="Errors" FunctionName=tenantplane-sync', 'Sum', 300))`,
    ]);
    expect(labels(w)).toEqual([
      'complete passes',
      'incomplete passes (a bound stopped them)',
      'failed invocations (pass-level failures)',
    ]);
    expect(w).toMatchObject({ x: 0, width: 12, properties: { view: 'timeSeries' } });
  });

  it('shows Decisions by action, stacked', () => {
    const w = byTitle('Decisions by action');
    expect(expressions(w)).toEqual(
      ['Creates', 'Updates', 'Deletes', 'Skips'].map(
        (m) => `SUM(${tenantSearch(m as 'Creates', 'Sum')})`,
      ),
    );
    expect(labels(w)).toEqual(['Create', 'Update', 'Delete', 'Skip']);
    expect(w).toMatchObject({ x: 12, width: 12, properties: { stacked: true } });
  });

  it('shows pass duration percentiles p50, p90, p99 and the slowest tenants', () => {
    const percentiles = byTitle('Pass duration of the slowest tenant (ms): p50, p90, p99');
    expect(expressions(percentiles)).toEqual(
      ['p50', 'p90', 'p99'].map(
        (p) =>
          `MAX(SEARCH('{Tenantplane,tenant} MetricName="PassDurationMs"', '${p}', ${DASHBOARD_PERIOD_SECONDS}))`,
      ),
    );
    const slowest = byTitle('Slowest tenants: p99 pass duration (ms), top 10');
    expect(expressions(slowest)).toEqual([
      `SORT(${tenantSearch(SyncMetric.PassDurationMs, 'p99')}, MAX, DESC, 10)`,
    ]);
    expect(labels(slowest)).toEqual([`\${PROP('Dim.tenant')}`]);
  });

  it('lists the top tenants by Skips and object errors, and functions by failures', () => {
    const cases = [
      ['Top 10 tenants by Skips', tenantSearch(SyncMetric.Skips, 'Sum'), 'tenant'],
      ['Top 10 tenants by object errors', tenantSearch(SyncMetric.ObjectErrors, 'Sum'), 'tenant'],
      ['Top 10 functions by failed invocations', FAILED_INVOCATIONS_SEARCH, 'FunctionName'],
    ] as const;
    for (const [i, [title, search, dimension]] of cases.entries()) {
      const w = byTitle(title);
      expect(expressions(w)).toEqual([`SORT(${search}, SUM, DESC, 10)`]);
      expect(labels(w)).toEqual([`\${PROP('Dim.${dimension}')}`]);
      expect(w).toMatchObject({
        x: 8 * i,
        width: 8,
        properties: {
          view: 'table',
          table: { summaryColumns: ['SUM'], showTimeSeriesData: false },
        },
      });
    }
  });

  it('shows the resume hit rate: ResumeHit averaged per tenant, mean and lowest', () => {
    const w = byTitle('Resume hit rate (share of passes that resumed)');
    const search = tenantSearch(SyncMetric.ResumeHit, 'Average');
    expect(search).toBe(
      `SEARCH('{Tenantplane,tenant} MetricName="ResumeHit"', 'Average', ${DASHBOARD_PERIOD_SECONDS})`,
    );
    expect(expressions(w)).toEqual([`AVG(${search})`, `MIN(${search})`]);
    expect(labels(w)).toEqual(['mean of tenants', 'lowest tenant']);
    expect(w).toMatchObject({
      x: 0,
      width: 24,
      properties: { view: 'timeSeries', yAxis: { left: { min: 0, max: 1 } } },
    });
  });

  it('reads only the metrics the handler publishes, in its namespace and dimension', () => {
    const searched = [...body.matchAll(/SEARCH\('\{([^}]*)\} MetricName=\\"(\w+)\\"/g)].map(
      (m) => `${m[1]}/${m[2]}`,
    );
    expect(searched.length).toBeGreaterThan(10);
    const published = Object.values(SyncMetric).map((m) => `${METRICS_NAMESPACE},tenant/${m}`);
    for (const s of searched) expect([...published, 'AWS/Lambda,FunctionName/Errors']).toContain(s);
    // The fleet's health: passes, Decisions by action, durations, object errors, resume hit rate.
    const shown = new Set(searched.map((s) => s.split('/').pop()));
    for (const m of [
      SyncMetric.PassComplete,
      SyncMetric.PassIncomplete,
      SyncMetric.Creates,
      SyncMetric.Updates,
      SyncMetric.Deletes,
      SyncMetric.Skips,
      SyncMetric.PassDurationMs,
      SyncMetric.ObjectErrors,
      SyncMetric.ResumeHit,
    ])
      expect(shown).toContain(m);
  });

  it('is laid out in rows on a 24-column grid, a header first', () => {
    expect(widgets[0]).toMatchObject({ type: 'text', x: 0, y: 0, width: 24 });
    expect(widgets[0]!.properties.markdown).toContain('# tenantplane fleet');
    for (const w of widgets) expect(w.x + w.width).toBeLessThanOrEqual(24);
    expect(widgets).toHaveLength(12);
  });
});
