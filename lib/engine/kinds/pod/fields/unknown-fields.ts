/**
 * The field tables as a rule: a tenant Pod that sets a field no table lists (one a later
 * Kubernetes added, which the engine cannot know the meaning of) waits for a decision, a Skip
 * naming the field's path, unless the policy allows that path (`spec.workloads.pods.allowFields`:
 * then it is copied verbatim): it gets no host copy, and one it has keeps running as it was,
 * neither updated nor deleted. A Pod that sets a field a table refuses is refused whatever the
 * policy. The
 * walk reads the structs whose fields the tables list; a field inside one the tables copy whole
 * (a probe, an affinity term) goes with it. Ephemeral containers are left off the host Pod, and
 * their fields with them.
 */
import { isRecord } from '../../../../common/index.js';
import { podLimitsOf, type WorkloadPolicy } from '../../../policy/workloads.js';
import {
  CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from './container-fields.js';
import { FieldHandling, type FieldTable } from './field-table.js';
import { POD_SPEC_FIELDS } from './pod-spec-fields.js';
import { VOLUME_FIELDS, VOLUME_PROJECTION_FIELDS } from './volume-fields.js';

type Json = Record<string, unknown>;

/** A field found by the walk: where it is, and whether a table knows it. */
interface Finding {
  path: string;
  /** The table's row refuses it (otherwise: no table lists it). */
  refusedBy?: string;
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Whether a value sets anything: not absent, null, an empty list or an empty object. */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return true;
}

/** The fields of `holder` at `path` that `table` does not list or refuses. */
function check(holder: unknown, table: FieldTable, path: string, found: Finding[]): void {
  if (!isRecord(holder)) return;
  // Run on every Pod of every pass: keys walked without building entry arrays.
  for (const field in holder) {
    const value = holder[field];
    const row = Object.hasOwn(table, field) ? table[field] : undefined;
    if (row === undefined) {
      if (value !== undefined) found.push({ path: `${path}.${field}` });
    } else if (row.handling === FieldHandling.Refused && isSet(value)) {
      found.push({ path: `${path}.${field}`, refusedBy: row.how });
    }
  }
}

/** Every field of a Pod spec no table lists, or one a table refuses, in spec order. */
export function podFieldFindings(spec: unknown): Finding[] {
  const found: Finding[] = [];
  if (!isRecord(spec)) return found;
  check(spec, POD_SPEC_FIELDS, 'spec', found);
  check(spec.securityContext, POD_SECURITY_CONTEXT_FIELDS, 'spec.securityContext', found);
  for (const list of ['initContainers', 'containers']) {
    for (const container of records(spec[list])) {
      const at = `spec.${list}[${String(container.name)}]`;
      check(container, CONTAINER_FIELDS, at, found);
      check(container.securityContext, SECURITY_CONTEXT_FIELDS, `${at}.securityContext`, found);
    }
  }
  for (const volume of records(spec.volumes)) {
    const at = `spec.volumes[${String(volume.name)}]`;
    check(volume, VOLUME_FIELDS, at, found);
    const projected = volume.projected;
    if (!isRecord(projected)) continue;
    for (const [i, source] of records(projected.sources).entries()) {
      check(source, VOLUME_PROJECTION_FIELDS, `${at}.projected.sources[${i}]`, found);
    }
  }
  return found;
}

/** A path with its list items unnamed, as the policy spells it: `spec.containers[].newField`. */
export function genericPath(path: string): string {
  return path.replace(/\[[^\]]*\]/g, '[]');
}

/**
 * The Skip reason of a Pod that sets a field a table refuses (whatever the policy), or
 * `undefined`: a deliberate tenant change, refused like any other (a copy it has goes).
 */
export function podFieldRefusal(spec: unknown): string | undefined {
  for (const finding of podFieldFindings(spec)) {
    if (finding.refusedBy !== undefined) {
      return `the Pod sets ${finding.path}, which is never copied to the host: ${finding.refusedBy}; remove it`;
    }
  }
  return undefined;
}

/**
 * Why a Pod waits for a decision: the first field it sets that no table lists and the policy does
 * not allow (`spec.workloads.pods.allowFields`), in words for a Pod whose host copy is kept as it
 * was and for one that gets none; `undefined` otherwise. Not a refusal: such a field can appear
 * on every running Pod at once (a newer tenant apiserver that defaults it), and the tenant did
 * nothing to lose its workloads for (`../../frame/translator.ts`, `undecided`).
 */
export function podFieldUndecided(
  spec: unknown,
  policy: WorkloadPolicy | undefined,
): { kept: string; notCreated: string } | undefined {
  const allowed = podLimitsOf(policy).allowFields;
  for (const finding of podFieldFindings(spec)) {
    if (finding.refusedBy !== undefined) continue;
    const generic = genericPath(finding.path);
    if (allowed.includes(generic)) continue;
    const what = `the Pod sets ${finding.path}, a field this engine does not know (a later Kubernetes added it), so nobody decided what it would do on the host`;
    const until = `nothing is written until the engine knows the field or the policy allows it; upgrade the engine, or have the operator allow it to be copied as it is (spec.workloads.pods.allowFields: ${generic})`;
    return {
      kept: `${what}; kept: the host copy keeps running as it was (neither updated nor deleted); ${until}`,
      notCreated: `${what}; it gets no host copy: ${until}`,
    };
  }
  return undefined;
}
