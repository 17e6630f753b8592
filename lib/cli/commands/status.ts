/** `tenantplane status <tenant>`: the TenantCluster's policy, last pass and recent Events. */
import { type EventView, tenantClusterEvents } from '../../adapters/events/index.js';
import { isRecord } from '../../common/index.js';
import {
  type Condition,
  InvalidPolicyError,
  parseSyncPolicy,
  recordedConditions,
  type SyncPolicy,
  TenantClusterNotFoundError,
} from '../../engine/index.js';
import { type KubeObject, TENANT_CLUSTER } from '../../ports/index.js';
import { withClusters } from '../clusters.js';
import { conditionRows } from '../condition-rows.js';
import { formatDuration } from '../duration.js';
import { hostReadError, messageOf } from '../errors.js';
import { eventTable } from '../event-table.js';
import { ExitCode } from '../exit-codes.js';
import { answer, countsText, formatTable, painter } from '../format.js';
import { type CliIo, colorsEnabled } from '../io.js';
import type { ClusterFlags } from '../kubeconfig-choice.js';
import { checkTenantName, type OutputFlags } from '../options.js';

export interface StatusFlags extends ClusterFlags, OutputFlags {
  events: number;
}

/** `status.lastPass` as the CRD stores it. */
export interface LastPass {
  passId?: string;
  startedAt?: string;
  finishedAt?: string;
  durationMs?: number;
  complete?: boolean;
  incompleteReason?: string;
  counts?: Partial<Record<'create' | 'update' | 'delete' | 'skip' | 'alreadyGone', number>>;
  /** Decisions whose write failed, per action (apart from `counts`). */
  failed?: Partial<Record<'create' | 'update' | 'delete', number>>;
  errorCount?: number;
  errors?: string[];
  /** How the pass synced its kinds: `resumed`, `full` or `resync`. */
  path?: string;
  /** Why a kind was not resumed. */
  pathReason?: string;
}

/** `status.follow` as the CRD stores it (the latest follow: `tenantplane sync --follow`). */
export interface FollowStatus {
  active?: boolean;
  holder?: string;
  since?: string;
  passes?: number;
  changes?: number;
  latencyP50Ms?: number;
  latencyP99Ms?: number;
  endedAt?: string;
  endReason?: string;
}

/** One line about the latest follow: who, since when, what it did, and how it ended. */
export function followText(follow: FollowStatus, paint = painter(false)): string {
  const latency =
    follow.latencyP50Ms === undefined
      ? ''
      : `, latency p50 ${follow.latencyP50Ms} ms, p99 ${follow.latencyP99Ms ?? '?'} ms`;
  const did = `${follow.passes ?? 0} passes, ${follow.changes ?? 0} changes${latency}`;
  if (follow.active) {
    return `${paint('green', 'yes')}, by ${follow.holder ?? '<unknown>'} since ${follow.since ?? '<unknown>'} (${did})`;
  }
  return `no; the last follow ran from ${follow.since ?? '<unknown>'} to ${follow.endedAt ?? '<unknown>'}, ended: ${follow.endReason ?? '<unknown>'} (${did})`;
}

export interface TenantStatusReport {
  tenant: string;
  /** `status.follow`, when the tenant was ever followed. */
  follow?: FollowStatus;
  spec: unknown;
  policy?: SyncPolicy;
  policyError?: string;
  lastPass?: LastPass;
  /** `status.conditions` (Ready, Degraded). */
  conditions?: Condition[];
  /** Set while the TenantCluster is being deleted: the host copies a pass still has to remove. */
  deleting?: { copiesLeft: number | undefined };
  events: EventView[];
  eventsError?: string;
}

function lastPassOf(object: KubeObject): LastPass | undefined {
  const status = object.status;
  if (!isRecord(status)) return undefined;
  return isRecord(status.lastPass) ? (status.lastPass as LastPass) : undefined;
}

/** The plain-text status of a TenantCluster, `now` dating its Events. */
export function statusText(
  report: TenantStatusReport,
  now: number,
  paint = painter(false),
): string {
  const rows: string[][] = [];
  rows.push(['TenantCluster:', report.tenant]);
  if (report.policy) {
    const p = report.policy;
    rows.push(['Host namespace:', p.hostNamespace]);
    rows.push(['Paused:', p.paused ? paint('yellow', 'yes (passes write nothing)') : 'no']);
    rows.push(['Kinds (toHost):', p.toHost.map((r) => `${r.kind} (${r.apiVersion})`).join(', ')]);
  } else {
    rows.push(['Policy:', paint('red', `invalid: ${report.policyError}`)]);
  }
  if (report.deleting) {
    const left = report.deleting.copiesLeft;
    rows.push([
      'Deleting:',
      paint(
        'yellow',
        left === undefined
          ? 'yes; waiting for a pass to remove its host copies'
          : `${left} ${left === 1 ? 'copy' : 'copies'} left`,
      ),
    ]);
  }
  rows.push(...conditionRows(report.conditions ?? [], paint));
  if (report.follow) rows.push(['Followed:', followText(report.follow, paint)]);
  const lp = report.lastPass;
  if (!lp) {
    rows.push(['Last pass:', `none yet (run: tenantplane sync ${report.tenant})`]);
  } else {
    rows.push(['Last pass:', lp.passId ?? '<unknown>']);
    const took = lp.durationMs !== undefined ? ` (took ${formatDuration(lp.durationMs)})` : '';
    rows.push(['  Finished:', `${lp.finishedAt ?? '<unknown>'}${took}`]);
    rows.push([
      '  Complete:',
      lp.complete
        ? paint('green', 'yes')
        : paint('yellow', `no: ${lp.incompleteReason ?? 'work was left for the next pass'}`),
    ]);
    const c = lp.counts ?? {};
    const counts = { Create: c.create, Update: c.update, Delete: c.delete, Skip: c.skip };
    const f = lp.failed ?? {};
    const failed = { Create: f.create, Update: f.update, Delete: f.delete };
    if (lp.path) {
      rows.push(['  Path:', lp.pathReason ? `${lp.path} (${lp.pathReason})` : lp.path]);
    }
    rows.push(['  Decisions:', countsText(counts, { failed, alreadyGone: c.alreadyGone })]);
    rows.push(['  Errors:', String(lp.errorCount ?? lp.errors?.length ?? 0)]);
    for (const e of lp.errors ?? []) rows.push(['', paint('red', e)]);
  }
  let out = `${formatTable(rows, 1)}\n\n`;
  if (report.eventsError) out += `Events: could not be read (${report.eventsError})\n`;
  else if (report.events.length === 0) out += 'Events: none\n';
  else out += `Recent events (latest first):\n${eventTable(report.events, now)}\n`;
  return out;
}

/**
 * Runs `status` for the TenantCluster `tenantArg` and prints the answer.
 * @throws CommandError when the TenantCluster cannot be read; TenantClusterNotFoundError when it
 *   does not exist.
 */
export async function statusCommand(
  tenantArg: string,
  flags: StatusFlags,
  io: CliIo,
): Promise<ExitCode> {
  const tenant = checkTenantName(tenantArg);
  return withClusters(flags, io, async (clusters) => {
    const hostApi = await clusters.host();
    let object: KubeObject | undefined;
    try {
      object = await hostApi.get(TENANT_CLUSTER, undefined, tenant);
    } catch (error) {
      throw hostReadError(error, `TenantCluster "${tenant}"`);
    }
    if (!object) throw new TenantClusterNotFoundError(tenant);
    const report: TenantStatusReport = { tenant, spec: object.spec, events: [] };
    try {
      report.policy = parseSyncPolicy(tenant, object.spec);
    } catch (error) {
      if (!(error instanceof InvalidPolicyError)) throw error;
      report.policyError = error.problems.join('; ');
    }
    const lastPass = lastPassOf(object);
    if (lastPass) report.lastPass = lastPass;
    const follow = isRecord(object.status) ? object.status.follow : undefined;
    if (isRecord(follow)) report.follow = follow as FollowStatus;
    if (object.metadata.deletionTimestamp) {
      const cleanup = isRecord(object.status) ? object.status.cleanup : undefined;
      const left = isRecord(cleanup) ? cleanup.copiesLeft : undefined;
      report.deleting = { copiesLeft: typeof left === 'number' ? left : undefined };
    }
    const conditions = recordedConditions(object.status);
    if (conditions.length > 0) report.conditions = conditions;
    try {
      report.events = (await tenantClusterEvents(hostApi, tenant)).slice(0, flags.events);
    } catch (error) {
      report.eventsError = messageOf(error);
    }
    io.out(
      answer(flags.output, report, () =>
        statusText(report, Date.now(), painter(colorsEnabled(io))),
      ),
    );
    return ExitCode.Ok;
  });
}
