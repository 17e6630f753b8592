/**
 * The PersistentVolumeClaim translator. A claim's spec is immutable once created except for
 * `spec.resources.requests` (expansion), and the host fills in what it binds and defaults
 * (`volumeName`, a default `storageClassName`, `volumeMode`): so an update is the host's claim with
 * only the requests overwritten, and a claim never fights its binding (nor is it ever replaced:
 * a replaced claim would lose its data). `volumeName` and `selector` name the tenant's volumes,
 * which mean nothing on the host: host-owned (`../transform.ts`). A claim naming a host volume in
 * `volumeName` gets no copy unless the policy hands that volume out
 * (`spec.workloads.volumes.volumeNames`), and then its copy names it: the host binds a claim to
 * the volume it names, whoever the volume was kept for. `storageClassName` is kept (the
 * host's classes are what a tenant's claim asks for), or mapped to the host class the policy names
 * for it (`spec.workloads.storageClasses`). A data source (`dataSource`,
 * `dataSourceRef`: a claim to clone, a snapshot, a populator's object) is an object of the
 * tenant's, so it names its host copy. One in another namespace (`dataSourceRef.namespace`) is
 * refused, as for ephemeral volumes: the tenant's grant for it (a ReferenceGrant) is not something
 * the host can check, and naming the host copy without it would let a claim clone any claim of its
 * tenant.
 *
 * The class a claim's copy gets is limited when the policy lists classes
 * (`spec.workloads.volumes.storageClasses`), and `""` (no class: the host's volume controller
 * binds any unclaimed volume of no class, an operator's or another tenant's released one) only
 * when listed. That limit stops a new copy only: a copy made before the policy narrowed keeps its
 * data, as deleting a claim would delete its volume.
 */
import { cloneJson, isRecord, jsonEqual } from '../../../common/index.js';
import { type KubeObject, PERSISTENT_VOLUME_CLAIM } from '../../../ports/index.js';
import { hostName } from '../../names/naming.js';
import { simpleSpecFields } from '../../object/kind-traits.js';
import { isolationOf, type WorkloadPolicy } from '../../policy/workloads.js';
import type { KindModule } from '../frame/kind-module.js';
import { statusBackTurn } from '../frame/status-back.js';
import { type StatusBackRule, statusOf } from '../frame/status-patch.js';
import type { KindTranslator, TranslatedUpdate, TranslateTarget } from '../frame/translator.js';

function renameSource(ref: unknown, target: TranslateTarget): void {
  if (!isRecord(ref) || typeof ref.name !== 'string') return;
  // The refusal let only the claim's own namespace through; the host claim's is the host's.
  ref.name = hostName(ref.name, target.virtualNamespace, target.tenant);
  delete ref.namespace;
}

/** The Skip reason of a claim whose data source is in another namespace, or `undefined`. */
export function claimSourceRefusal(
  source: KubeObject,
  target: TranslateTarget,
): string | undefined {
  const spec = source.spec;
  const ref = isRecord(spec) ? spec.dataSourceRef : undefined;
  if (!isRecord(ref) || typeof ref.namespace !== 'string') return undefined;
  if (ref.namespace === '' || ref.namespace === target.virtualNamespace) return undefined;
  return `its data source is in another namespace (spec.dataSourceRef: namespace "${ref.namespace}"), which is not supported on the host: use a source in the claim's namespace`;
}

/** The host storage class a claim spec asks for, the policy's mapping applied; absent: none named. */
function hostClassOf(spec: Record<string, unknown>, policy?: WorkloadPolicy): string | undefined {
  const tenantClass = spec.storageClassName;
  if (typeof tenantClass !== 'string') return undefined;
  return tenantClass === '' ? '' : (policy?.storageClasses?.[tenantClass] ?? tenantClass);
}

/**
 * Sets a claim spec's `storageClassName` (in place) to the host class the policy maps it to; a
 * class the policy does not map, and a claim without one (the host's default class), stay as
 * they are. The class of a claim cannot change: a mapping changed later reaches new claims only.
 */
export function mapStorageClass(spec: Record<string, unknown>, policy?: WorkloadPolicy): void {
  const hostClass = hostClassOf(spec, policy);
  if (hostClass !== undefined) spec.storageClassName = hostClass;
}

/**
 * Why claim `source` must get no new copy: its host storage class is not one the policy allows
 * (`spec.workloads.volumes.storageClasses`), or it asks for no class (`""`, static binding) which
 * the policy does not list; `undefined` otherwise. Not a refusal: a copy it has keeps its data.
 */
export function claimClassRefusal(
  source: KubeObject,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  if (!isRecord(source.spec)) return undefined;
  const hostClass = hostClassOf(source.spec, policy);
  if (hostClass === undefined) return undefined; // the host's default class
  const allowed = isolationOf(policy).volumes.storageClasses;
  if (allowed?.includes(hostClass) ?? hostClass !== '') return undefined;
  const knob = `spec.workloads.volumes.storageClasses: ${
    allowed === undefined ? 'any named class' : allowed.map((c) => `"${c}"`).join(', ') || 'none'
  }`;
  if (hostClass === '') {
    return `the claim asks for no storage class (spec.storageClassName: ""), so the host would bind it to any unclaimed volume of no class, an operator's or another tenant's; the policy does not allow that (${knob}): name a storage class, or leave the field out for the host's default`;
  }
  const mapped =
    hostClass === source.spec.storageClassName ? '' : ' (mapped by spec.workloads.storageClasses)';
  return `the claim's host storage class "${hostClass}"${mapped} is not one the policy allows (${knob})`;
}

/** The host volume a claim spec names (`spec.volumeName`), when it names one. */
function volumeNameOf(spec: unknown): string | undefined {
  const name = isRecord(spec) ? spec.volumeName : undefined;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Whether the policy hands host volume `name` out (`spec.workloads.volumes.volumeNames`). */
function volumeAllowed(name: string, policy: WorkloadPolicy | undefined): boolean {
  return isolationOf(policy).volumes.volumeNames?.includes(name) ?? false;
}

/**
 * Why claim `source` must get no new copy: it names a host volume (`spec.volumeName`) the policy
 * does not hand out (`spec.workloads.volumes.volumeNames`), which the host would bind it to whoever
 * it was kept for; `undefined` otherwise. Not a refusal, as for the class: a copy it has keeps its
 * data.
 */
export function claimVolumeRefusal(
  source: KubeObject,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  const name = volumeNameOf(source.spec);
  if (name === undefined || volumeAllowed(name, policy)) return undefined;
  const listed = isolationOf(policy).volumes.volumeNames ?? [];
  const knob = `spec.workloads.volumes.volumeNames: ${listed.map((v) => `"${v}"`).join(', ') || 'none'}`;
  return `the claim names the host volume "${name}" (spec.volumeName), and the host would bind it to that volume whoever it was kept for (an operator's static volume, another tenant's); the policy does not hand it out (${knob}): leave spec.volumeName out and let the storage class provide a volume`;
}

/** Why claim `source` gets no new copy: the volume it names, then its class; see each. */
export function claimNoRecreate(
  source: KubeObject,
  policy: WorkloadPolicy | undefined,
): string | undefined {
  return claimVolumeRefusal(source, policy) ?? claimClassRefusal(source, policy);
}

/**
 * The host claim: data sources renamed, the storage class mapped by the policy (host-owned fields
 * are stripped by the generic transform), and a host volume the policy hands out named again.
 */
export function claimToHost(object: KubeObject, target: TranslateTarget): KubeObject {
  const spec = object.spec;
  if (!isRecord(spec)) return object;
  mapStorageClass(spec, target.workloads);
  // `volumeName` is host-owned, so the transform dropped it; one the policy allows is the tenant's
  // to name (a claim naming any other gets no copy: `claimVolumeRefusal`).
  const volume = volumeNameOf(target.source.spec);
  if (volume !== undefined && volumeAllowed(volume, target.workloads)) spec.volumeName = volume;
  renameSource(spec.dataSource, target);
  renameSource(spec.dataSourceRef, target);
  return object;
}

function requestsOf(object: KubeObject): unknown {
  const spec = object.spec;
  return isRecord(spec) && isRecord(spec.resources) ? spec.resources.requests : undefined;
}

/**
 * The update: the host's claim as observed, its `spec.resources.requests` set to the desired
 * ones. A shrink is sent as asked, and the host's refusal ("can not be less than previous
 * value") is that claim's error, in the host's words.
 */
export function claimUpdateBody(desired: KubeObject, observed: KubeObject): TranslatedUpdate {
  const { managedFields: _managedFields, ...metadata } = observed.metadata;
  const body: KubeObject = { ...cloneJson(observed), metadata: cloneJson(metadata) };
  delete body.status;
  const want = requestsOf(desired);
  if (want === undefined || jsonEqual(want, requestsOf(observed))) return { body, changed: [] };
  const spec = isRecord(body.spec) ? body.spec : {};
  const resources = isRecord(spec.resources) ? spec.resources : {};
  resources.requests = cloneJson(want);
  spec.resources = resources;
  body.spec = spec;
  return { body, changed: ['spec.resources.requests'] };
}

/** Claims: data sources renamed, storage class mapped; an update changes only the requests. */
export const PERSISTENT_VOLUME_CLAIM_TRANSLATOR: KindTranslator = {
  kind: PERSISTENT_VOLUME_CLAIM,
  refusal: claimSourceRefusal,
  toHost: claimToHost,
  updateBody: claimUpdateBody,
};

const CLAIM_STATUS: StatusBackRule = {
  kind: PERSISTENT_VOLUME_CLAIM_TRANSLATOR.kind,
  fields: [
    'phase',
    'capacity',
    'accessModes',
    'conditions',
    'allocatedResources',
    'allocatedResourceStatuses',
  ],
  settled: (host) => statusOf(host).phase === 'Bound' || statusOf(host).phase === 'Lost',
  // The tenant's own controller manager says whether a tenant Pod uses the claim (1.37 does; a
  // host before it reports no such condition, and copying its list would undo it every pass).
  tenantConditions: ['Unused'],
};

/**
 * Claims: the host binds the volume (`volumeName`, `selector` are host-owned); the claim's phase,
 * capacity and resize state come back (`spec.volumeName` does not: the host's volume is not the
 * tenant's), and so do host Events.
 */
export const PERSISTENT_VOLUME_CLAIM_MODULE: KindModule = {
  kind: PERSISTENT_VOLUME_CLAIM_TRANSLATOR.kind,
  translator: PERSISTENT_VOLUME_CLAIM_TRANSLATOR,
  hostOwned: simpleSpecFields(['volumeName', 'selector']),
  statusBack: CLAIM_STATUS,
  eventsBack: true,
  hostView: 'status',
  noRecreate: claimNoRecreate,
  startKind: (ctx, compiled) => statusBackTurn(ctx, compiled, CLAIM_STATUS),
};
