/**
 * The shape of a per-kind translator: what a kind that refers to or selects other objects adds to
 * the generic transform (`../transform.ts`). Translators import this file (types only) and are
 * listed in `registry.ts`; they never import the registry, so no import circle forms.
 */
import type { KindRef, KubeObject } from '../../../ports/index.js';
import type { CreateAsk, TranslatedUpdate } from '../../object/kind-traits.js';
import type { TransformTarget } from '../../object/transform.js';

export type { CreateAsk, TranslatedUpdate };

/**
 * What a kind's turn read for this pass's translations (`KindTurn.hostFacts` in
 * `kind-module.ts`), of the host and, for some kinds, of the tenant beyond the kind: answers a
 * pure translator cannot read itself. Each kind declares its own in its room (its module is a
 * `KindModule<F>`, its translator a `KindTranslator<F>`), an object whose members are all
 * optional, handed to its translator merged into the target; the generic code carries them
 * unread, so no shared file names what a kind needs. A translator that needs a fact and finds it
 * missing refuses (the check could not be made).
 */
export type HostFacts = object;

/**
 * Where a translated object goes: the generic target plus what a translator needs to rename and
 * scope what the object refers to.
 */
interface TranslateBase extends TransformTarget {
  /** The tenant object's (virtual) namespace: every reference is resolved inside it. */
  virtualNamespace: string;
  /** The tenant object, untouched (read-only): the source of tenant values such as its name. */
  source: KubeObject;
}

/** {@link TranslateBase} with what the kind's turn read for it (`F`, the kind's own facts). */
export type TranslateTarget<F extends HostFacts = HostFacts> = TranslateBase & F;

/**
 * One object another object refers to by name, always in the referring object's virtual
 * namespace (a Pod can only refer to objects of its own namespace).
 */
export interface ObjectReference extends KindRef {
  /** The tenant name of the referenced object. */
  name: string;
  /** Where the reference is, for people: `spec.volumes[config].configMap`. */
  path: string;
  /** An optional reference (`optional: true`) never keeps the referring object off the host. */
  optional: boolean;
}

/** The Skip reasons of an object that waits for a decision (`KindTranslator.undecided`). */
export interface Undecided {
  /** Its host copy exists: it is kept as it is. */
  readonly kept: string;
  /** It has no host copy: none is made. */
  readonly notCreated: string;
}

/**
 * What a kind adds to the generic transform. Every method is pure and never mutates its inputs.
 */
export interface KindTranslator<F extends HostFacts = HostFacts> {
  /** The kind translated (its resource key is the registry's key). */
  readonly kind: KindRef;
  /**
   * The kinds {@link references} can name, and those the kind's turn reads for its translation (a
   * Pod's tenant DNS Service): a pass applies them before this kind, whatever the policy order, so
   * a reference made in the same pass is found.
   */
  readonly referencedKinds?: readonly KindRef[];
  /**
   * Label keys of the tenant object that are not the tenant's to copy: the tenant apiserver set
   * them from something the host has its own of (a Pod's node topology, copied at binding). The
   * generic transform leaves them out, so they are neither written nor owned on the host.
   */
  readonly ignoredLabels?: readonly string[];
  /**
   * Why the object must not go to the host at all (a Pod asking for host access the policy does
   * not allow), or `undefined`. A refusal is a Skip whose reason is this text.
   */
  refusal?(source: KubeObject, target: TranslateTarget<F>): string | undefined;
  /**
   * The host object: `object` is the generic transform's result (renamed, re-namespaced, reverse
   * mapping merged, server fields stripped); the translator returns it translated (references
   * renamed, selectors scoped, host-owned fields cleared). It may return a new object or `object`
   * changed in place (it is the translator's own copy).
   */
  toHost(object: KubeObject, target: TranslateTarget<F>): KubeObject;
  /**
   * Why the translated object (`host`, what {@link toHost} returned) must not be written, or
   * `undefined`: a refusal of what the host would get, the engine's own changes included, where
   * {@link refusal} judges the tenant object before translation (a Pod's Pod Security level is
   * the host Pod's: `pod/translate/pod-security.ts`). A refusal is a Skip whose reason is this text.
   */
  hostRefusal?(host: KubeObject, target: TranslateTarget<F>): string | undefined;
  /**
   * Why the object waits for someone to decide about it, asked last (once nothing refuses it): a
   * Pod that sets a field the engine does not know. Not a refusal: the tenant may have changed
   * nothing (a newer tenant apiserver defaults a new field on every Pod), so nothing it has is
   * lost. The object gets no copy, and a copy it has is kept as it is, neither updated nor
   * deleted; the Skip's reason is `kept` or `notCreated` (`pipeline/kind-writes.ts`).
   */
  undecided?(source: KubeObject, target: TranslateTarget<F>): Undecided | undefined;
  /**
   * For kinds the host lets change only in part (a Pod): the update built from `observed` (the
   * host's copy, whole) with only the fields that may change overwritten from `desired`. Without
   * it the generic update applies (the desired content over the host's metadata). Labels and
   * annotations are the engine's to merge: the translator leaves `metadata` as observed. A kind
   * with it carries no spec-hash annotation (a change the host cannot take must not cost a write).
   */
  updateBody?(desired: KubeObject, observed: KubeObject): TranslatedUpdate;
  /**
   * For kinds whose {@link updateBody} names immutable changes: a digest of what of `desired` the
   * host cannot change, recorded on the copy at each write, so a difference the host made itself
   * (a webhook's sidecar) is told from one the tenant made.
   */
  immutableDigest?(desired: KubeObject): string;
  /**
   * Every object `source` (the tenant object) refers to, optional ones included. A required one
   * whose host copy is missing keeps the object off the host, with a Decision naming it.
   */
  references?(source: KubeObject): ObjectReference[];
  /**
   * What the copy's create asks of the host beyond the translated object (a Service's cluster
   * IPs, the tenant's own), or `undefined` for nothing.
   */
  createAsk?(source: KubeObject, target: TranslateTarget<F>): CreateAsk | undefined;
}
