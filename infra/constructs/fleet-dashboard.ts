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

/** Where a stage's metrics are: its EMF namespace and its functions' name stem. */
export interface FleetScope {
  namespace: string;
  functionStem: string;
}

const DEFAULT_SCOPE: FleetScope = {
  namespace: METRICS_NAMESPACE,
  functionStem: FUNCTION_NAME_STEM,
};

/** A namespace as SEARCH reads it: a staged one (`prod/Tenantplane`) is quoted. */
const searchNamespace = (namespace: string) =>
  /^[A-Za-z0-9]+$/.test(namespace) ? namespace : `"${namespace}"`;

/** The period of every series on the dashboard, in seconds. */
export const DASHBOARD_PERIOD_SECONDS = 300;
/** How many tenants the "top" and "slowest" widgets list. */
export const TOP_TENANTS = 10;

type SyncMetricName = (typeof SyncMetric)[keyof typeof SyncMetric];

/** Every tenant's series of one metric: `SEARCH('{Tenantplane,tenant} MetricName="…"', …)`. */
export function tenantSearch(
  metric: SyncMetricName,
  statistic: string,
  namespace = METRICS_NAMESPACE,
): string {
  return `SEARCH('{${searchNamespace(namespace)},${TENANT_DIMENSION}} MetricName="${metric}"', '${statistic}', ${DASHBOARD_PERIOD_SECONDS})`;
}

/**
 * Lambda `Errors` of every sync function (`tenantplane-sync-…`: a partial match on the composite
 * token). A pass-level failure fails the invocation and publishes no EMF metrics, so this is the
 * only place failures show.
 */
export const failedInvocationsSearch = (functionStem: string) =>
  `SEARCH('{AWS/Lambda,FunctionName} MetricName="Errors" FunctionName=${functionStem}', 'Sum', ${DASHBOARD_PERIOD_SECONDS})`;

export const FAILED_INVOCATIONS_SEARCH = failedInvocationsSearch(FUNCTION_NAME_STEM);

const expression = (expr: string, label: string, color?: string) =>
  new cloudwatch.MathExpression({
    expression: expr,
    label,
    period: Duration.seconds(DASHBOARD_PERIOD_SECONDS),
    ...(color ? { color } : {}),
  });

/** Dynamic label: the series' own dimension value (the tenant, or the function name). */
const dimensionLabel = (dimension: string) => `\${PROP('Dim.${dimension}')}`;

const total = (scope: FleetScope, metric: SyncMetricName, label: string, color?: string) =>
  expression(`SUM(${tenantSearch(metric, 'Sum', scope.namespace)})`, label, color);

const topBySum = (search: string, dimension: string) =>
  expression(`SORT(${search}, SUM, DESC, ${TOP_TENANTS})`, dimensionLabel(dimension));

/**
 * Follow mode (docs/follow-mode.md): the time followed tenants were followed (what they are
 * billed for beyond their passes), the changes their follows converged and how fast, per
 * invocation (each publishes its own p50 and p99), and the ticks dropped behind another follower.
 */
function followRow(scope: FleetScope): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Followed time and changes converged by follows',
      width: 8,
      height: 6,
      left: [total(scope, SyncMetric.FollowedSeconds, 'seconds followed (all tenants)')],
      right: [
        total(scope, SyncMetric.FollowChanges, 'changes converged by follows'),
        total(scope, SyncMetric.TicksDropped, 'ticks dropped (lease held by another follower)'),
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
          `AVG(${tenantSearch(SyncMetric.ChangeLatencyP50, 'Average', scope.namespace)})`,
          'p50 (mean of tenants)',
        ),
        expression(
          `MAX(${tenantSearch(SyncMetric.ChangeLatencyP99, 'Maximum', scope.namespace)})`,
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
      metrics: [
        topBySum(
          tenantSearch(SyncMetric.FollowedSeconds, 'Sum', scope.namespace),
          TENANT_DIMENSION,
        ),
      ],
      layout: cloudwatch.TableLayout.HORIZONTAL,
      summary: { columns: [cloudwatch.TableSummaryColumn.SUM], hideNonSummaryColumns: true },
    }),
  ];
}

export interface FleetDashboardProps {
  /** Default {@link FLEET_DASHBOARD_NAME}. */
  dashboardName?: string;
  /** A stage's namespace and function stem; default the unstaged ones. */
  scope?: FleetScope;
}

export class FleetDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(parent: Construct, id: string, props: FleetDashboardProps = {}) {
    super(parent, id);
    const dashboardName = props.dashboardName ?? FLEET_DASHBOARD_NAME;
    const scope = props.scope ?? DEFAULT_SCOPE;
    const failed = failedInvocationsSearch(scope.functionStem);
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
              `Every tenant of this account and region: EMF metrics \`${scope.namespace}\` by \`${TENANT_DIMENSION}\`, and the Lambda \`Errors\` of the \`${scope.functionStem}-*\` functions (a pass-level failure publishes no metrics). One tenant: its Logs Insights queries \`…tenantplane/<tenant>/…\` and alarms \`…tenantplane-<tenant>-…\`, \`kubectl describe tenantcluster <tenant>\`.`,
            ].join('\n\n'),
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Passes: complete, incomplete, failed',
            width: 12,
            height: 6,
            left: [
              total(scope, SyncMetric.PassComplete, 'complete passes', '#2ca02c'),
              total(
                scope,
                SyncMetric.PassIncomplete,
                'incomplete passes (a bound stopped them)',
                '#ff7f0e',
              ),
              expression(`SUM(${failed})`, 'failed invocations (pass-level failures)', '#d62728'),
            ],
            leftYAxis: { min: 0, label: 'per 5 minutes', showUnits: false },
          }),
          new cloudwatch.GraphWidget({
            title: 'Decisions by action',
            width: 12,
            height: 6,
            stacked: true,
            left: [
              total(scope, SyncMetric.Creates, 'Create'),
              total(scope, SyncMetric.Updates, 'Update'),
              total(scope, SyncMetric.Deletes, 'Delete'),
              total(scope, SyncMetric.Skips, 'Skip'),
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
                `MAX(${tenantSearch(SyncMetric.PassDurationMs, p, scope.namespace)})`,
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
                `SORT(${tenantSearch(SyncMetric.PassDurationMs, 'p99', scope.namespace)}, MAX, DESC, ${TOP_TENANTS})`,
                dimensionLabel(TENANT_DIMENSION),
              ),
            ],
            leftYAxis: { min: 0, label: 'ms', showUnits: false },
          }),
        ],
        [
          table(
            `Top ${TOP_TENANTS} tenants by Skips`,
            topBySum(tenantSearch(SyncMetric.Skips, 'Sum', scope.namespace), TENANT_DIMENSION),
          ),
          table(
            `Top ${TOP_TENANTS} tenants by object errors`,
            topBySum(
              tenantSearch(SyncMetric.ObjectErrors, 'Sum', scope.namespace),
              TENANT_DIMENSION,
            ),
          ),
          table(
            `Top ${TOP_TENANTS} functions by failed invocations`,
            topBySum(failed, 'FunctionName'),
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
                `AVG(${tenantSearch(SyncMetric.ResumeHit, 'Average', scope.namespace)})`,
                'mean of tenants',
              ),
              expression(
                `MIN(${tenantSearch(SyncMetric.ResumeHit, 'Average', scope.namespace)})`,
                'lowest tenant',
              ),
            ],
            leftYAxis: { min: 0, max: 1, label: 'hit rate', showUnits: false },
          }),
        ],
        followRow(scope),
      ],
    });
  }
}
