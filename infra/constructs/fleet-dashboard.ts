/**
 * One CloudWatch dashboard for the whole fleet (every tenant of the app, in its account and
 * region), in the shared stack.
 *
 * It is built from SEARCH expressions over the `tenant` dimension of the handler's EMF metrics
 * (functions/sync/contract.ts) and over the sync functions' Lambda `Errors`, never from a list of
 * tenants: its body is the same for 3 tenants or 300, needs no reference into the tenant stacks,
 * and shows a tenant as soon as its function publishes. One SEARCH returns at most 500 time
 * series, so the fleet totals cover up to 500 tenants per region.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SyncMetric, TENANT_DIMENSION } from '../../functions/sync/contract.js';
import { FLEET_DASHBOARD_NAME, FUNCTION_NAME_STEM } from '../names.js';

/** The period of every series on the dashboard, in seconds. */
export const DASHBOARD_PERIOD_SECONDS = 300;
/** How many tenants the "top" and "slowest" widgets list. */
export const TOP_TENANTS = 10;

type SyncMetricName = (typeof SyncMetric)[keyof typeof SyncMetric];

/** Every tenant's series of one metric: `SEARCH('{Tenantplane,tenant} MetricName="…"', …)`. */
export function tenantSearch(metric: SyncMetricName, statistic: string): string {
  return `SEARCH('{${METRICS_NAMESPACE},${TENANT_DIMENSION}} MetricName="${metric}"', '${statistic}', ${DASHBOARD_PERIOD_SECONDS})`;
}

/**
 * Lambda `Errors` of every sync function (`tenantplane-sync-…`: a partial match on the composite
 * token). A pass-level failure fails the invocation and publishes no EMF metrics, so this is the
 * only place failures show.
 */
export const FAILED_INVOCATIONS_SEARCH = `SEARCH('{AWS/Lambda,FunctionName} MetricName="Errors" FunctionName=${FUNCTION_NAME_STEM}', 'Sum', ${DASHBOARD_PERIOD_SECONDS})`;

const expression = (expr: string, label: string, color?: string) =>
  new cloudwatch.MathExpression({
    expression: expr,
    label,
    period: Duration.seconds(DASHBOARD_PERIOD_SECONDS),
    ...(color ? { color } : {}),
  });

/** Dynamic label: the series' own dimension value (the tenant, or the function name). */
const dimensionLabel = (dimension: string) => `\${PROP('Dim.${dimension}')}`;

const total = (metric: SyncMetricName, label: string, color?: string) =>
  expression(`SUM(${tenantSearch(metric, 'Sum')})`, label, color);

const topBySum = (search: string, dimension: string) =>
  expression(`SORT(${search}, SUM, DESC, ${TOP_TENANTS})`, dimensionLabel(dimension));

/**
 * Follow mode (docs/follow-mode.md): the time followed tenants were followed (what they are
 * billed for beyond their passes), the changes their follows converged and how fast, per
 * invocation (each publishes its own p50 and p99), and the ticks dropped behind another follower.
 */
function followRow(): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Followed time and changes converged by follows',
      width: 8,
      height: 6,
      left: [total(SyncMetric.FollowedSeconds, 'seconds followed (all tenants)')],
      right: [
        total(SyncMetric.FollowChanges, 'changes converged by follows'),
        total(SyncMetric.TicksDropped, 'ticks dropped (lease held by another follower)'),
      ],
      leftYAxis: { min: 0, label: 'seconds per 5 minutes', showUnits: false },
      rightYAxis: { min: 0, label: 'per 5 minutes', showUnits: false },
    }),
    new cloudwatch.GraphWidget({
      title: 'Change latency of follows (ms): per-invocation p50 and p99',
      width: 8,
      height: 6,
      left: [
        expression(
          `AVG(${tenantSearch(SyncMetric.ChangeLatencyP50, 'Average')})`,
          'p50 (mean of tenants)',
        ),
        expression(
          `MAX(${tenantSearch(SyncMetric.ChangeLatencyP99, 'Maximum')})`,
          'p99 (highest invocation)',
          '#d62728',
        ),
      ],
      leftYAxis: { min: 0, label: 'ms', showUnits: false },
    }),
    new cloudwatch.TableWidget({
      title: `Top ${TOP_TENANTS} tenants by seconds followed`,
      width: 8,
      height: 6,
      metrics: [topBySum(tenantSearch(SyncMetric.FollowedSeconds, 'Sum'), TENANT_DIMENSION)],
      layout: cloudwatch.TableLayout.HORIZONTAL,
      summary: { columns: [cloudwatch.TableSummaryColumn.SUM], hideNonSummaryColumns: true },
    }),
  ];
}

export interface FleetDashboardProps {
  /** Default {@link FLEET_DASHBOARD_NAME}. */
  dashboardName?: string;
}

export class FleetDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: FleetDashboardProps = {}) {
    super(scope, id);
    const dashboardName = props.dashboardName ?? FLEET_DASHBOARD_NAME;
    const table = (title: string, metric: cloudwatch.IMetric) =>
      new cloudwatch.TableWidget({
        title,
        width: 8,
        height: 7,
        metrics: [metric],
        layout: cloudwatch.TableLayout.HORIZONTAL,
        summary: {
          columns: [cloudwatch.TableSummaryColumn.SUM],
          hideNonSummaryColumns: true,
        },
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName,
      defaultInterval: Duration.days(1),
      widgets: [
        [
          new cloudwatch.TextWidget({
            width: 24,
            height: 2,
            markdown: [
              '# tenantplane fleet',
              `Every tenant of this account and region: EMF metrics \`${METRICS_NAMESPACE}\` by \`${TENANT_DIMENSION}\`, and the Lambda \`Errors\` of the \`${FUNCTION_NAME_STEM}-*\` functions (a pass-level failure publishes no metrics). One tenant: Logs Insights queries \`tenantplane/<tenant>/…\`, alarms \`tenantplane-<tenant>-…\`, \`kubectl describe tenantcluster <tenant>\`.`,
            ].join('\n\n'),
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Passes: complete, incomplete, failed',
            width: 12,
            height: 6,
            left: [
              total(SyncMetric.PassComplete, 'complete passes', '#2ca02c'),
              total(
                SyncMetric.PassIncomplete,
                'incomplete passes (a bound stopped them)',
                '#ff7f0e',
              ),
              expression(
                `SUM(${FAILED_INVOCATIONS_SEARCH})`,
                'failed invocations (pass-level failures)',
                '#d62728',
              ),
            ],
            leftYAxis: { min: 0, label: 'per 5 minutes', showUnits: false },
          }),
          new cloudwatch.GraphWidget({
            title: 'Decisions by action',
            width: 12,
            height: 6,
            stacked: true,
            left: [
              total(SyncMetric.Creates, 'Create'),
              total(SyncMetric.Updates, 'Update'),
              total(SyncMetric.Deletes, 'Delete'),
              total(SyncMetric.Skips, 'Skip'),
            ],
            leftYAxis: { min: 0, label: 'per 5 minutes', showUnits: false },
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Pass duration of the slowest tenant (ms): p50, p90, p99',
            width: 12,
            height: 6,
            left: (['p50', 'p90', 'p99'] as const).map((p) =>
              expression(
                `MAX(${tenantSearch(SyncMetric.PassDurationMs, p)})`,
                `${p} (highest tenant)`,
              ),
            ),
            leftYAxis: { min: 0, label: 'ms', showUnits: false },
          }),
          new cloudwatch.GraphWidget({
            title: `Slowest tenants: p99 pass duration (ms), top ${TOP_TENANTS}`,
            width: 12,
            height: 6,
            left: [
              expression(
                `SORT(${tenantSearch(SyncMetric.PassDurationMs, 'p99')}, MAX, DESC, ${TOP_TENANTS})`,
                dimensionLabel(TENANT_DIMENSION),
              ),
            ],
            leftYAxis: { min: 0, label: 'ms', showUnits: false },
          }),
        ],
        [
          table(
            `Top ${TOP_TENANTS} tenants by Skips`,
            topBySum(tenantSearch(SyncMetric.Skips, 'Sum'), TENANT_DIMENSION),
          ),
          table(
            `Top ${TOP_TENANTS} tenants by object errors`,
            topBySum(tenantSearch(SyncMetric.ObjectErrors, 'Sum'), TENANT_DIMENSION),
          ),
          table(
            `Top ${TOP_TENANTS} functions by failed invocations`,
            topBySum(FAILED_INVOCATIONS_SEARCH, 'FunctionName'),
          ),
        ],
        [
          // ResumeHit is 1 for a resumed pass, 0 for a full or resync one: its Average per tenant
          // is the tenant's resume hit rate.
          new cloudwatch.GraphWidget({
            title: 'Resume hit rate (share of passes that resumed)',
            width: 24,
            height: 6,
            left: [
              expression(
                `AVG(${tenantSearch(SyncMetric.ResumeHit, 'Average')})`,
                'mean of tenants',
              ),
              expression(`MIN(${tenantSearch(SyncMetric.ResumeHit, 'Average')})`, 'lowest tenant'),
            ],
            leftYAxis: { min: 0, max: 1, label: 'hit rate', showUnits: false },
          }),
        ],
        followRow(),
      ],
    });
  }
}
