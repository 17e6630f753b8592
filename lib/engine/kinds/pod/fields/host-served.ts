/**
 * The Pod fields the host serves (`tenant/host-pod-schema.ts`): a host of an older Kubernetes
 * release drops, without an error, a field it does not serve, so a tenant Pod that sets one is a
 * Skip naming the field and the host's version, and nothing is written; the host Pod would run
 * other than the engine decided. `HostFeatures` lists what the host lacks of the tables
 * ({@link unservedPodFields}). With no schema read (a client that cannot tell, a failed read) the
 * engine writes as before.
 */
import { isRecord } from '../../../../common/index.js';
import { gatedFieldsSet } from '../../../tenant/host-pod-gates.js';
import type { HostPodSchema, PodStruct } from '../../../tenant/host-pod-schema.js';
import {
  CONTAINER_FIELDS,
  POD_SECURITY_CONTEXT_FIELDS,
  SECURITY_CONTEXT_FIELDS,
} from './container-fields.js';
import type { FieldTable } from './field-table.js';
import { POD_SPEC_FIELDS } from './pod-spec-fields.js';
import { VOLUME_FIELDS, VOLUME_PROJECTION_FIELDS } from './volume-fields.js';

/** Each struct the walk reads: the engine's table, and where it sits, as the policy spells it. */
const STRUCTS: readonly { struct: PodStruct; table: FieldTable; at: string }[] = [
  { struct: 'PodSpec', table: POD_SPEC_FIELDS, at: 'spec' },
  { struct: 'PodSecurityContext', table: POD_SECURITY_CONTEXT_FIELDS, at: 'spec.securityContext' },
  { struct: 'Container', table: CONTAINER_FIELDS, at: 'spec.containers[]' },
  {
    struct: 'SecurityContext',
    table: SECURITY_CONTEXT_FIELDS,
    at: 'spec.containers[].securityContext',
  },
  { struct: 'Volume', table: VOLUME_FIELDS, at: 'spec.volumes[]' },
  {
    struct: 'VolumeProjection',
    table: VOLUME_PROJECTION_FIELDS,
    at: 'spec.volumes[].projected.sources[]',
  },
];

/**
 * The fields of the engine's tables the host does not serve, as paths, in table order, then the
 * fields below them its feature gates keep off (`gatedOff`: a container's `lifecycle.stopSignal`).
 */
export function unservedPodFields(schema: HostPodSchema): string[] {
  const missing = STRUCTS.flatMap(({ struct, table, at }) =>
    Object.keys(table)
      .filter((field) => !schema.served[struct].has(field))
      .map((field) => `${at}.${field}`),
  );
  return [...missing, ...schema.gatedOff.filter((path) => !missing.includes(path))];
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Whether a value sets anything: not absent, null, an empty list or an empty object. */
function isSet(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return Object.keys(value).length > 0;
  return true;
}

/** The first field `holder` sets that `served` lacks, as `path.field`. */
function unserved(holder: unknown, served: ReadonlySet<string>, path: string): string | undefined {
  if (!isRecord(holder)) return undefined;
  for (const field in holder) {
    if (!served.has(field) && isSet(holder[field])) return `${path}.${field}`;
  }
  return undefined;
}

/** The first field a Pod spec sets that the host does not serve, in spec order. */
export function firstUnservedField(spec: unknown, schema: HostPodSchema): string | undefined {
  if (!isRecord(spec)) return undefined;
  const { served } = schema;
  let found =
    unserved(spec, served.PodSpec, 'spec') ??
    unserved(spec.securityContext, served.PodSecurityContext, 'spec.securityContext');
  for (const list of ['initContainers', 'containers']) {
    for (const container of records(spec[list])) {
      const at = `spec.${list}[${String(container.name)}]`;
      found ??=
        unserved(container, served.Container, at) ??
        unserved(container.securityContext, served.SecurityContext, `${at}.securityContext`) ??
        unserved(container.lifecycle, served.Lifecycle, `${at}.lifecycle`);
    }
  }
  for (const volume of records(spec.volumes)) {
    const at = `spec.volumes[${String(volume.name)}]`;
    found ??= unserved(volume, served.Volume, at);
    const sources = isRecord(volume.projected) ? records(volume.projected.sources) : [];
    for (const [i, source] of sources.entries()) {
      found ??= unserved(source, served.VolumeProjection, `${at}.projected.sources[${i}]`);
    }
  }
  return found;
}

/** The Skip reason of a Pod that sets a field the host does not serve, or `undefined`. */
export function hostServedRefusal(
  spec: unknown,
  schema: HostPodSchema | undefined,
): string | undefined {
  if (schema === undefined) return undefined;
  const field = firstUnservedField(spec, schema);
  if (field === undefined) return unansweredGateRefusal(spec, schema);
  // A gated field is in the host's types: its feature gate is off, which the Skip says.
  const gated = schema.gatedOff.some((path) => samePath(path, field));
  const how = gated ? ' (its feature gate is off there)' : '';
  return `the host (Kubernetes ${schema.version}) does not serve ${field}${how}; the Pod would run without it, so nothing is written (docs/versions.md)`;
}

/** Whether a table path (`spec.volumes[].image`) is the path of a Pod's field (`spec.volumes[v].image`). */
function samePath(table: string, field: string): boolean {
  return (
    table === field.replace(/\[[^\]]*\]/g, '[]').replace('spec.initContainers', 'spec.containers')
  );
}

/**
 * A Pod that sets a gated field whose probe failed (`gatesUnknown`): the host may drop it, so
 * nothing is written until a probe answers (asked again when a pass next meets such a Pod).
 */
function unansweredGateRefusal(spec: unknown, schema: HostPodSchema): string | undefined {
  for (const gated of gatedFieldsSet(spec)) {
    const entry = schema.gatesUnknown.find((unknown) => unknown.startsWith(`${gated.path} (`));
    if (entry !== undefined) {
      return `the host (Kubernetes ${schema.version}) could not be asked whether its feature gates keep ${entry}; the Pod might run without it, so nothing is written until it answers (docs/versions.md)`;
    }
  }
  return undefined;
}
