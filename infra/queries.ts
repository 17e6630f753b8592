/**
 * CloudWatch Logs Insights saved queries over the sync function's JSON log lines (Powertools
 * Logger: `level`, `message`, `timestamp`, plus the LogSink's decision and pass fields).
 */
import { DECISION_LOG_MESSAGE, PASS_LOG_MESSAGE } from '../lib/adapters/log-sink.js';

export interface SavedQuery {
  /** Short name, used in the query definition's name `tenantplane/<tenant>/<what>`. */
  what: string;
  query: string;
}

/** The `message` of a decision line and of the pass summary line (lib/adapters/log-sink.ts). */
export const DECISION_MESSAGE = DECISION_LOG_MESSAGE;
export const PASS_MESSAGE = PASS_LOG_MESSAGE;

const DECISION_FIELDS =
  'fields @timestamp, action, kind, tenantNamespace, tenantName, hostNamespace, hostName, reason, passId, dryRun';

/** The saved queries of one tenant; each runs over that tenant's log group only. */
export function tenantQueries(): SavedQuery[] {
  return [
    {
      what: 'decisions',
      query: [
        DECISION_FIELDS,
        `filter message = "${DECISION_MESSAGE}"`,
        'sort @timestamp desc',
        'limit 1000',
      ].join('\n| '),
    },
    {
      what: 'skips',
      query: [
        DECISION_FIELDS,
        `filter message = "${DECISION_MESSAGE}" and action = "Skip"`,
        'sort @timestamp desc',
        'limit 1000',
      ].join('\n| '),
    },
    {
      what: 'deletes',
      query: [
        DECISION_FIELDS,
        `filter message = "${DECISION_MESSAGE}" and action = "Delete"`,
        'sort @timestamp desc',
        'limit 1000',
      ].join('\n| '),
    },
    {
      what: 'errors',
      query: [
        'fields @timestamp, level, message, error, kind, tenantNamespace, tenantName, hostName, passId',
        `filter level = "ERROR" or level = "WARN" or ispresent(error)`,
        'sort @timestamp desc',
        'limit 1000',
      ].join('\n| '),
    },
    {
      what: 'pass-durations',
      query: [
        'fields @timestamp, durationMs, complete, passId',
        `filter message = "${PASS_MESSAGE}"`,
        'stats count(*) as passes, avg(durationMs) as avgMs, pct(durationMs, 95) as p95Ms, max(durationMs) as maxMs by bin(1h)',
      ].join('\n| '),
    },
    {
      what: 'incomplete-passes',
      query: [
        'fields @timestamp, passId, incompleteReason, summary, durationMs',
        `filter message = "${PASS_MESSAGE}" and ispresent(incompleteReason)`,
        'sort @timestamp desc',
        'limit 1000',
      ].join('\n| '),
    },
  ];
}
