/** How `explain` says what it found: a two-column text answer, or its record for `-o json`. */

import type { KindRule } from '../../../engine/index.js';
import { eventTable } from '../../event-table.js';
import { answer, formatTable, type OutputFormat, type Paint, painter } from '../../format.js';
import { type Explanation, type GoneHostObject, isGone } from './gather.js';

function ruleText(index: number, rule: KindRule): string {
  const parts = [`apiVersion: ${rule.apiVersion}`, `kind: ${rule.kind}`];
  const ex = rule.exclude;
  if (ex) {
    const e: string[] = [];
    if (ex.namespaces?.length) e.push(`namespaces [${ex.namespaces.join(', ')}]`);
    if (ex.names?.length) e.push(`names [${ex.names.join(', ')}]`);
    if (ex.labelSelector) e.push(`labelSelector "${ex.labelSelector}"`);
    if (e.length > 0) parts.push(`exclude ${e.join(', ')}`);
  }
  return `spec.toHost[${index}] {${parts.join(', ')}}`;
}

function sourceExistsText(source: NonNullable<Explanation['source']>, paint: Paint): string {
  if (source.checkError) {
    return paint('yellow', `unknown: could not ask the tenant cluster (${source.checkError})`);
  }
  if (!source.exists) {
    return paint(
      'red',
      'no: the source is gone, so the next complete pass deletes this host object',
    );
  }
  if (source.uidChanged) {
    return paint(
      'yellow',
      `yes, but recreated (now uid ${source.currentUid}); the next pass updates this host object`,
    );
  }
  return paint('green', 'yes, on the tenant cluster');
}

/** The plain-text answer about an existing host object, `now` dating its Decisions. */
export function explanationText(x: Explanation, now: number, paint = painter(false)): string {
  const what = `${x.host.kind} ${x.host.namespace}/${x.host.name}`;
  if (!x.managed || !x.source) {
    return `${what} is not managed by tenantplane: ${x.notManagedReason}. No pass creates, updates or deletes it.\n`;
  }
  const s = x.source;
  const rows: string[][] = [];
  rows.push(['Host object:', `${what} (managed by tenantplane)`]);
  rows.push(['Tenant cluster:', s.tenant]);
  rows.push([
    'Source:',
    `${s.kind} ${s.virtualNamespace}/${s.virtualName}${s.virtualUid ? ` (uid ${s.virtualUid})` : ''}`,
  ]);
  rows.push(['Source exists:', sourceExistsText(s, paint)]);
  if (s.tenantStatus) rows.push(['Tenant status:', s.tenantStatus]);
  if (x.rule) {
    let text = `${ruleText(x.rule.index, x.rule.rule)} of TenantCluster ${s.tenant}`;
    if (x.rule.excludesSource)
      text += paint(
        'yellow',
        '; the rule now excludes the source, so the next pass deletes this host object',
      );
    rows.push(['Policy rule:', text]);
  } else {
    rows.push(['Policy rule:', paint('yellow', `none: ${x.ruleProblem}`)]);
  }
  if (x.hostNamespaceOfPolicy && x.hostNamespaceOfPolicy !== x.host.namespace) {
    rows.push([
      'Note:',
      paint(
        'yellow',
        `the policy's host namespace is now ${x.hostNamespaceOfPolicy}; objects in ${x.host.namespace} are no longer touched`,
      ),
    ]);
  }
  let out = `${formatTable(rows, 1)}\n\n`;
  if (x.eventsError) {
    out += `Latest decisions: could not read the Events (${x.eventsError})\n`;
  } else if (x.decisions.length === 0) {
    out += `Latest decisions: none recorded in the Events of TenantCluster ${s.tenant} (Events expire after an hour; run "tenantplane plan ${s.tenant}" to see what a pass would do now)\n`;
  } else {
    out += `Latest decisions (Events on TenantCluster ${s.tenant}, latest first):\n${eventTable(x.decisions, now)}\n`;
  }
  return out;
}

/** The Decisions still recorded about a host object that does not exist, latest first. */
export function goneText(gone: GoneHostObject, now: number): string {
  const { kind, namespace, name } = gone.host;
  return `Latest decisions about ${kind} ${namespace}/${name} (Events on TenantClusters, latest first):\n${eventTable(gone.decisions, now)}\n`;
}

/**
 * `explain`'s output for `-o`, `now` dating the Decisions. Empty for a missing host object
 * without recorded Decisions: the error the command then ends with is the whole answer.
 */
export function explainOutput(
  found: Explanation | GoneHostObject,
  output: OutputFormat,
  now: number,
  paint = painter(false),
): string {
  if (isGone(found)) {
    return found.decisions.length === 0 ? '' : answer(output, found, () => goneText(found, now));
  }
  return answer(output, found, () => explanationText(found, now, paint));
}
