/**
 * The per-kind translator registry: which kinds get more than the generic transform, and the one
 * entry point the engine calls to turn a tenant object into its host object. A kind without a
 * translator (ConfigMaps, Secrets, custom resources) gets the generic transform alone.
 *
 * To add a kind: write `kinds/<kind>.ts` exporting a {@link KindTranslator} (importing only the
 * types of `translator.ts`, never this file), and add it to {@link TRANSLATORS} below.
 */
import type { KindRef, KubeObject } from '../../../ports/index.js';
import { Annotations } from '../../names/metadata.js';
import { resourceKey } from '../../names/resource-key.js';
import { type TransformTarget, toHostObject, withSpecHash } from '../transform.js';
import { ENDPOINT_SLICE_TRANSLATOR } from './endpoint-slice.js';
import { ENDPOINTS_TRANSLATOR } from './endpoints.js';
import { INGRESS_TRANSLATOR } from './ingress.js';
import { NETWORK_POLICY_TRANSLATOR } from './network-policy.js';
import { PERSISTENT_VOLUME_CLAIM_TRANSLATOR } from './persistent-volume-claim.js';
import { POD_TRANSLATOR } from './pod.js';
import { podImmutableDigest } from './pod-immutable.js';
import { withHostPriorityClass } from './pod-priority.js';
import { SERVICE_TRANSLATOR } from './service.js';
import { SERVICE_ACCOUNT_TRANSLATOR } from './service-account.js';
import type { KindTranslator, ObjectReference, TranslateTarget } from './translator.js';

export type {
  KindTranslator,
  ObjectReference,
  TranslatedUpdate,
  TranslateTarget,
} from './translator.js';

/**
 * The Pod translator as the registry serves it, with what lives apart from `pod.ts`: the policy's
 * host priority class (a policy choice, not a translation) and the digest of what a running Pod
 * cannot change (`pod-immutable.ts`, next to the update that names such changes).
 */
const POD: KindTranslator = {
  ...withHostPriorityClass(POD_TRANSLATOR),
  immutableDigest: podImmutableDigest,
};

/** Every translator, one per kind. */
const TRANSLATORS: readonly KindTranslator[] = [
  POD,
  SERVICE_TRANSLATOR,
  ENDPOINT_SLICE_TRANSLATOR,
  ENDPOINTS_TRANSLATOR,
  PERSISTENT_VOLUME_CLAIM_TRANSLATOR,
  INGRESS_TRANSLATOR,
  NETWORK_POLICY_TRANSLATOR,
  SERVICE_ACCOUNT_TRANSLATOR,
];

const BY_KEY: ReadonlyMap<string, KindTranslator> = new Map(
  TRANSLATORS.map((t) => [resourceKey(t.kind), t]),
);

/** The translator of a kind, `undefined` for the kinds the generic transform serves alone. */
export function translatorFor(kind: KindRef): KindTranslator | undefined {
  return BY_KEY.get(resourceKey(kind));
}

/** A tenant object translated: its host object, or why it must not go to the host. */
export type Translation = { host: KubeObject } | { refused: string };

/**
 * The host object for a tenant object: the generic transform, then the kind's translator if it
 * has one (its refusal first), then the spec hash over the translated spec. Pure; never mutates
 * `source`.
 */
export function translate(source: KubeObject, target: TransformTarget): Translation {
  const translator = translatorFor(source);
  // A kind updated field by field (a Pod) carries no spec hash: none is computed to be dropped.
  const generic = toHostObject(
    withoutLabels(source, translator?.ignoredLabels),
    target,
    translator?.updateBody === undefined,
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
  if (!translator.updateBody) return { host: withSpecHash(host) };
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
  return translatorFor(source)?.references?.(source) ?? [];
}

/**
 * The kinds that kind `kind` may refer to (Pods: ConfigMaps, Secrets, claims, service accounts):
 * a pass applies them before `kind`, whatever the policy order.
 */
export function referencedKinds(kind: KindRef): readonly KindRef[] {
  return translatorFor(kind)?.referencedKinds ?? [];
}
