/**
 * The PersistentVolumeClaim translator. A claim's spec is immutable once created except for
 * `spec.resources.requests` (expansion), and the host fills in what it binds and defaults
 * (`volumeName`, a default `storageClassName`, `volumeMode`): so an update is the host's claim with
 * only the requests overwritten, and a claim never fights its binding (nor is it ever replaced:
 * a replaced claim would lose its data). `volumeName` and `selector` name the tenant's volumes,
 * which mean nothing on the host: host-owned (`../transform.ts`). `storageClassName` is kept (the
 * host's classes are what a tenant's claim asks for), or mapped to the host class the policy names
 * for it (`spec.workloads.storageClasses`). A data source (`dataSource`,
 * `dataSourceRef`: a claim to clone, a snapshot, a populator's object) is an object of the
 * tenant's, so it names its host copy. One in another namespace (`dataSourceRef.namespace`) is
 * refused, as for ephemeral volumes: the tenant's grant for it (a ReferenceGrant) is not something
 * the host can check, and naming the host copy without it would let a claim clone any claim of its
 * tenant.
 */
import { cloneJson, isRecord, jsonEqual } from '../../common/index.js';
import { type KubeObject, PERSISTENT_VOLUME_CLAIM } from '../../ports/index.js';
import { hostName } from '../names/naming.js';
import { simpleSpecFields } from '../object/kind-traits.js';
import type { WorkloadPolicy } from '../policy/workloads.js';
import type { KindModule } from './kind-module.js';
import { statusBackTurn } from './status-back.js';
import { type StatusBackRule, statusOf } from './status-patch.js';
import type { KindTranslator, TranslatedUpdate, TranslateTarget } from './translator.js';

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

/**
 * Sets a claim spec's `storageClassName` (in place) to the host class the policy maps it to; a
 * class the policy does not map, and a claim without one (the host's default class), stay as
 * they are. The class of a claim cannot change: a mapping changed later reaches new claims only.
 */
export function mapStorageClass(spec: Record<string, unknown>, policy?: WorkloadPolicy): void {
  const tenantClass = spec.storageClassName;
  if (typeof tenantClass !== 'string' || tenantClass === '') return;
  const hostClass = policy?.storageClasses?.[tenantClass];
  if (hostClass !== undefined) spec.storageClassName = hostClass;
}

/**
 * The host claim: data sources renamed, the storage class mapped by the policy (host-owned fields
 * are stripped by the generic transform).
 */
export function claimToHost(object: KubeObject, target: TranslateTarget): KubeObject {
  const spec = object.spec;
  if (!isRecord(spec)) return object;
  mapStorageClass(spec, target.workloads);
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
  startKind: (ctx, compiled) => statusBackTurn(ctx, compiled, CLAIM_STATUS),
};
