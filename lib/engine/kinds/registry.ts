/**
 * The one list of kinds that add more than the generic transform, and what each adds (its
 * {@link KindModule}), with the entry points the pipeline calls. A kind not listed (a custom
 * resource) gets the generic transform and path alone.
 *
 * To add a kind, follow `README.md` in this folder.
 */
import type { KindRef, KubeObject } from '../../ports/index.js';
import { Annotations } from '../names/metadata.js';
import { resourceKey } from '../names/resource-key.js';
import { GENERIC_WRITES, type WriteTraits } from '../object/kind-traits.js';
import { type TransformTarget, toHostObject, withSpecHash } from '../object/transform.js';
import { CONFIG_MAP_MODULE } from './config-map/module.js';
import { ENDPOINT_SLICE_MODULE } from './endpoint-slice/module.js';
import { ENDPOINTS_MODULE } from './endpoints/module.js';
import type { KindModule } from './frame/kind-module.js';
import type {
  CreateAsk,
  HostFacts,
  ObjectReference,
  TranslateTarget,
  Undecided,
} from './frame/translator.js';
import { GRPC_ROUTE_MODULE } from './grpcroute/module.js';
import { HTTP_ROUTE_MODULE } from './httproute/module.js';
import { INGRESS_MODULE } from './ingress/ingress.js';
import { NETWORK_POLICY_MODULE } from './network-policy/network-policy.js';
import { PERSISTENT_VOLUME_CLAIM_MODULE } from './persistent-volume-claim/persistent-volume-claim.js';
import { POD_MODULE } from './pod/module.js';
import { PDB_MODULE } from './pod-disruption-budget/pod-disruption-budget.js';
import { SECRET_MODULE } from './secret/module.js';
import { SERVICE_MODULE } from './service/module.js';
import { SERVICE_ACCOUNT_MODULE } from './service-account/service-account.js';
import { TLS_ROUTE_MODULE } from './tlsroute/module.js';

export type { KindModule, KindOutcome, KindTurn } from './frame/kind-module.js';
export type {
  HostFacts,
  KindTranslator,
  ObjectReference,
  TranslateTarget,
  Undecided,
} from './frame/translator.js';
/** The Pod fields of the engine's tables a host lacks (`HostFeatures`, `report/`). */
export { unservedPodFields } from './pod/fields/host-served.js';
// The kubelet gateway reads a host Pod's record of its tenant's containers through the one door.
export { recordedTenantContainers } from './pod/tenant-containers.js';

/** Every kind with a module of its own, one module per kind. */
export const KINDS: readonly KindModule[] = [
  CONFIG_MAP_MODULE,
  SECRET_MODULE,
  POD_MODULE,
  SERVICE_MODULE,
  ENDPOINT_SLICE_MODULE,
  ENDPOINTS_MODULE,
  PERSISTENT_VOLUME_CLAIM_MODULE,
  INGRESS_MODULE,
  NETWORK_POLICY_MODULE,
  SERVICE_ACCOUNT_MODULE,
  PDB_MODULE,
  HTTP_ROUTE_MODULE,
  GRPC_ROUTE_MODULE,
  TLS_ROUTE_MODULE,
];

const BY_KEY: ReadonlyMap<string, KindModule> = new Map(
  KINDS.map((module) => [resourceKey(module.kind), module]),
);

/** A kind without a module of its own: the generic transform and path alone. */
const GENERIC = (kind: KindRef): KindModule => ({ kind });

/** The module of `kind` (a bare one for the kinds the generic path serves alone). */
export function kindModule(kind: KindRef): KindModule {
  return BY_KEY.get(resourceKey(kind)) ?? GENERIC(kind);
}

const TRAITS: ReadonlyMap<string, WriteTraits> = new Map(
  KINDS.map((module) => {
    const { translator, hostOwned, fixedFields } = module;
    const traits: WriteTraits = {
      ...(hostOwned ? { hostOwned } : {}),
      ...(fixedFields ? { fixedFields } : {}),
      ...(translator?.updateBody ? { updateBody: translator.updateBody } : {}),
      ...(translator?.immutableDigest ? { immutableDigest: translator.immutableDigest } : {}),
    };
    return [resourceKey(module.kind), traits];
  }),
);

/** How `kind`'s copies are written (`object/kind-traits.ts`). */
export function writeTraits(kind: KindRef): WriteTraits {
  return TRAITS.get(resourceKey(kind)) ?? GENERIC_WRITES;
}

/**
 * Whether errors about objects of `kind` must not carry the server's message: its module says so
 * (a Secret), or the policy marked the kind `sensitive` (`context/error-text.ts`).
 */
export function isSensitiveKind(kind: KindRef & { sensitive?: boolean }): boolean {
  return kind.sensitive === true || BY_KEY.get(resourceKey(kind))?.sensitive === true;
}

/** The Kinds whose host Events come back to the tenant (the copies a host controller reports on). */
export const EVENTS_BACK_KINDS: ReadonlySet<string> = new Set(
  KINDS.filter((module) => module.eventsBack).map((module) => module.kind.kind),
);

/**
 * A tenant object translated: its host object (and what its create asks of the host beyond it),
 * or why it must not go to the host.
 */
export type Translation =
  | { host: KubeObject; ask?: CreateAsk; undecided?: Undecided }
  | { refused: string };

/**
 * The host object for a tenant object: the generic transform (the kind's host-owned fields
 * stripped), then the kind's translator if it has one (its refusal of the tenant object first,
 * its refusal of the translated object after, then whether it waits for a decision: `undecided`,
 * its host object written by nobody), then the spec hash over the translated spec.
 * Pure; never mutates `source`. What the kind's turn read of the host (`HostFacts`) comes with
 * `target`, handed to the translator as is.
 */
export function translate<F extends HostFacts>(
  source: KubeObject,
  target: TransformTarget & F,
): Translation {
  const module = BY_KEY.get(resourceKey(source));
  const translator = module?.translator;
  // A kind updated field by field (a Pod) carries no spec hash: none is computed to be dropped.
  const generic = toHostObject(
    withoutLabels(source, translator?.ignoredLabels),
    target,
    translator?.updateBody === undefined,
    module?.hostOwned,
  );
  if (!translator) return { host: generic };
  const full: TranslateTarget = {
    ...target,
    virtualNamespace: source.metadata.namespace ?? '',
    source,
  };
  const refused = translator.refusal?.(source, full);
  if (refused !== undefined) return { refused };
  const host = translator.toHost(generic, full);
  const hostRefused = translator.hostRefusal?.(host, full);
  if (hostRefused !== undefined) return { refused: hostRefused };
  const undecided = translator.undecided?.(source, full);
  if (undecided !== undefined) return { host, undecided };
  const ask = translator.createAsk?.(source, full);
  if (!translator.updateBody)
    return ask ? { host: withSpecHash(host), ask } : { host: withSpecHash(host) };
  // Only what may change is compared on update, so a digest of the whole spec would make a change
  // the host cannot take (a Pod's command) an annotation write for nothing.
  const { [Annotations.SpecHash]: _spec, ...annotations } = host.metadata.annotations ?? {};
  host.metadata.annotations = annotations;
  return { host };
}

/** `source` without the label keys `ignored` (a shallow copy, only when it has one of them). */
function withoutLabels(source: KubeObject, ignored: readonly string[] | undefined): KubeObject {
  const labels = source.metadata.labels;
  if (!ignored || !labels || !ignored.some((key) => key in labels)) return source;
  const kept = { ...labels };
  for (const key of ignored) delete kept[key];
  return { ...source, metadata: { ...source.metadata, labels: kept } };
}

/** What a tenant object refers to (empty for kinds without references). */
export function referencesOf(source: KubeObject): ObjectReference[] {
  return BY_KEY.get(resourceKey(source))?.translator?.references?.(source) ?? [];
}

/**
 * The kinds that kind `kind` may refer to (Pods: ConfigMaps, Secrets, claims, service accounts):
 * a pass applies them before `kind`, whatever the policy order.
 */
export function referencedKinds(kind: KindRef): readonly KindRef[] {
  return BY_KEY.get(resourceKey(kind))?.translator?.referencedKinds ?? [];
}
