/**
 * The structured log sink: one JSON record per Decision and one per pass. CloudWatch Logs Insights
 * queries and alarms read these field names, so they are stable; the README copies the lists below.
 *
 * **Decision record** (`type: "decision"`), one per Decision, written as it is made:
 *
 * | Field | Type | Meaning |
 * |---|---|---|
 * | `type` | `"decision"` | record type |
 * | `message` | `"decision"` | constant, for `filter message = "decision"` |
 * | `tenant` | string | tenant cluster name |
 * | `passId` | string | the pass that made the decision |
 * | `action` | `Create` \| `Update` \| `Delete` \| `Skip` | what the engine did (or, dry run, would do) |
 * | `kind` | string | the Kind, e.g. `ConfigMap` |
 * | `apiVersion` | string | e.g. `v1` |
 * | `tenantRef` | string | tenant object, `"<virtual namespace>/<name>"` |
 * | `tenantNamespace`, `tenantName` | string | the same, split |
 * | `hostRef` | string | host object, `"<host namespace>/<host name>"` |
 * | `hostNamespace`, `hostName` | string | the same, split |
 * | `reason` | string | why, in plain words |
 * | `dryRun` | boolean | true when nothing was written |
 * | `error` | string, optional | the write was attempted and failed |
 *
 * **Pass record** (`type: "pass"`), one per pass, at its end:
 *
 * | Field | Type | Meaning |
 * |---|---|---|
 * | `type` | `"pass"` | record type |
 * | `message` | `"pass finished"` | constant |
 * | `summary` | string | one line in plain words: counts, errors, duration, complete or why not |
 * | `tenant`, `passId`, `dryRun` | | as above |
 * | `startedAt`, `finishedAt` | ISO-8601 string | pass start and end |
 * | `durationMs` | number | pass duration |
 * | `complete` | boolean | false when a bound or a failed listing left work for the next pass |
 * | `incompleteReason` | string, optional | why the pass is incomplete |
 * | `note` | string, optional | something an operator should know (e.g. the policy is paused) |
 * | `path` | `resumed` \| `full` \| `resync`, optional | which path the pass took |
 * | `pathReason` | string, optional | why a kind did not resume (`<kind>: <reason>; ...`) |
 * | `creates`, `updates`, `deletes`, `skips` | number | decisions carried out, per action |
 * | `failedWrites` | number | decisions whose write failed (not in the counts above) |
 * | `alreadyGone` | number | deletes that found the object gone (not in `deletes`) |
 * | `decisions` | number | all decisions of the pass |
 * | `errors` | number | per-object errors |
 * | `firstErrors` | array, at most 10 | `{kind, tenantRef?, hostRef?, reason?, message}` |
 * | `objectsSeen` | number | tenant objects listed, all kinds |
 * | `objectsSeenByKind` | object | tenant objects listed, per Kind |
 * | `tenantReads`, `tenantWrites`, `hostReads`, `hostWrites` | number | API requests made |
 *
 * Records never carry Secret data or credentials: a Decision holds only references and reasons,
 * and only the fields above are copied.
 */
import type { Decision, DecisionSink, ObjectError, ObjectRef, PassResult } from '../ports/index.js';

/** `message` of every decision record. */
export const DECISION_LOG_MESSAGE = 'decision';
/** `message` of every pass record. */
export const PASS_LOG_MESSAGE = 'pass finished';

/** How many per-object errors a pass record lists (all are counted). */
export const MAX_ERRORS_IN_PASS_RECORD = 10;

function ref(r: ObjectRef | undefined): string | undefined {
  return r === undefined ? undefined : `${r.namespace}/${r.name}`;
}

/** The decision record (see the module documentation for the fields). */
export function decisionLogRecord(d: Decision): Record<string, unknown> {
  const tenantRef = ref(d.tenantRef);
  const hostRef = ref(d.hostRef);
  const record: Record<string, unknown> = {
    type: 'decision',
    message: DECISION_LOG_MESSAGE,
    tenant: d.tenant,
    passId: d.passId,
    action: d.action,
    kind: d.kind,
    apiVersion: d.apiVersion,
    tenantRef,
    tenantNamespace: d.tenantRef.namespace,
    tenantName: d.tenantRef.name,
    hostRef,
    hostNamespace: d.hostRef.namespace,
    hostName: d.hostRef.name,
    reason: d.reason,
    dryRun: d.dryRun,
  };
  if (d.error !== undefined) record.error = d.error;
  return record;
}

function errorRecord(e: ObjectError): Record<string, unknown> {
  const record: Record<string, unknown> = { kind: e.kind };
  if (e.tenantRef) record.tenantRef = ref(e.tenantRef);
  if (e.hostRef) record.hostRef = ref(e.hostRef);
  if (e.reason !== undefined) record.reason = e.reason;
  record.message = e.message;
  return record;
}

/** The pass record (see the module documentation for the fields). */
export function passLogRecord(result: PassResult): Record<string, unknown> {
  const c = result.counts;
  const objectsSeen = Object.values(result.objectsSeen).reduce((a, b) => a + b, 0);
  const f = result.failed ?? { Create: 0, Update: 0, Delete: 0, Skip: 0 };
  const failedWrites = f.Create + f.Update + f.Delete;
  const alreadyGone = result.alreadyGone ?? 0;
  const decisions = c.Create + c.Update + c.Delete + c.Skip + failedWrites + alreadyGone;
  const apart = `${failedWrites > 0 ? `, ${failedWrites} failed` : ''}${alreadyGone > 0 ? `, ${alreadyGone} already gone` : ''}`;
  const state = result.complete
    ? 'complete'
    : `incomplete (${result.incompleteReason ?? 'unknown reason'})`;
  const record: Record<string, unknown> = {
    type: 'pass',
    message: PASS_LOG_MESSAGE,
    summary: `${result.dryRun ? '[dry run] ' : ''}pass ${state}: ${c.Create} created, ${c.Update} updated, ${c.Delete} deleted, ${c.Skip} skipped${apart}, ${result.errors.length} errors in ${result.durationMs} ms`,
    tenant: result.tenant,
    passId: result.passId,
    dryRun: result.dryRun,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    complete: result.complete,
  };
  if (result.incompleteReason !== undefined) record.incompleteReason = result.incompleteReason;
  if (result.note !== undefined) record.note = result.note;
  if (result.path !== undefined) record.path = result.path;
  if (result.pathReason !== undefined) record.pathReason = result.pathReason;
  if (result.throttled !== undefined) record.throttled = result.throttled;
  Object.assign(record, {
    creates: c.Create,
    updates: c.Update,
    deletes: c.Delete,
    skips: c.Skip,
    failedWrites,
    alreadyGone,
    decisions,
    errors: result.errors.length,
    firstErrors: result.errors.slice(0, MAX_ERRORS_IN_PASS_RECORD).map(errorRecord),
    objectsSeen,
    objectsSeenByKind: { ...result.objectsSeen },
    tenantReads: result.requests.tenant.reads,
    tenantWrites: result.requests.tenant.writes,
    hostReads: result.requests.host.reads,
    hostWrites: result.requests.host.writes,
  });
  return record;
}

/**
 * Writes one record per decision (as it is made) and one per pass through `write` (the Lambda
 * wires it to the Powertools Logger, the CLI to stdout). A failing `write` never reaches the pass.
 */
export class LogSink implements DecisionSink {
  constructor(private readonly write: (record: Record<string, unknown>) => void) {}

  decision(decision: Decision): void {
    this.safeWrite(decisionLogRecord(decision));
  }

  async passFinished(result: PassResult): Promise<void> {
    this.safeWrite(passLogRecord(result));
  }

  private safeWrite(record: Record<string, unknown>): void {
    try {
      this.write(record);
    } catch {
      // Logging must never break a pass.
    }
  }
}
