/**
 * What the generic write path (transform, drift, the write record, apply) needs to know of a
 * kind, given to it by the caller: the kinds' rooms (`kinds/registry.ts`) hold the knowledge,
 * this folder only its shape, so no step of `object/` names a kind.
 */
import { cloneJson, isRecord } from '../../common/index.js';
import type { KubeObject } from '../../ports/index.js';

type Json = Record<string, unknown>;

/**
 * Fields of a kind that the host cluster allocates or binds (cluster IPs, node ports, bound
 * volumes, the node a Pod runs on). The tenant's values mean nothing on the host, so they are
 * stripped from the desired object and, on update, carried over from the host's copy.
 */
export interface HostOwnedFields {
  strip(object: Json): void;
  restore(body: Json, observed: Json): void;
}

function specOf(object: Json): Json | undefined {
  return isRecord(object.spec) ? object.spec : undefined;
}

/** Host-owned fields that are plain members of `spec`. */
export function simpleSpecFields(fields: readonly string[]): HostOwnedFields {
  return {
    strip(object) {
      const spec = specOf(object);
      if (spec) for (const f of fields) delete spec[f];
    },
    restore(body, observed) {
      const spec = specOf(body);
      const seen = specOf(observed);
      if (!spec || !seen) return;
      for (const f of fields) {
        if (seen[f] !== undefined && spec[f] === undefined) spec[f] = cloneJson(seen[f]);
      }
    },
  };
}

/** An update body built by a kind, and what it changes (field paths, never values). */
export interface TranslatedUpdate {
  /** The whole object to PUT: the observed host object with what may change overwritten. */
  body: KubeObject;
  /** Content paths that differ (`spec.containers[web].image`); empty when none may or does. */
  changed: string[];
  /**
   * What differs although the host refuses to change it on this object (a running Pod's
   * command): the content paths, and the Skip's reason in plain words (what to do instead).
   * Absent when nothing such differs.
   */
  immutable?: { fields: string[]; reason: string };
  /**
   * The body of an in-place resize (a Pod's `resize` subresource, PUT before {@link body}): the
   * observed object with only its container resources changed. Absent when none changed.
   */
  resize?: KubeObject;
}

/** How a kind's copies are written; every member optional (a ConfigMap has none). */
export interface WriteTraits {
  /** Fields the host allocates: stripped from the desired object, kept from the host's copy. */
  readonly hostOwned?: HostOwnedFields;
  /**
   * For kinds the host lets change only in part (a Pod): the update built from `observed` (the
   * host's copy, whole) with only the fields that may change overwritten from `desired`. Without
   * it the generic update applies (the desired content over the host's metadata).
   */
  updateBody?(desired: KubeObject, observed: KubeObject): TranslatedUpdate;
  /**
   * For kinds whose {@link updateBody} names immutable changes: a digest of what of `desired` the
   * host cannot change, recorded on the copy at each write, so a difference the host made itself
   * (a webhook's sidecar) is told from one the tenant made.
   */
  immutableDigest?(desired: KubeObject): string;
  /**
   * The fields of `observed` an update to `desired` would have to change although the apiserver
   * refuses it, known before any update by the kind's fixed rules (an `immutable: true`
   * ConfigMap's data, a Secret's type): the copy is replaced instead. Without it a kind learns
   * them from a refused update (`replace.ts`, `immutableFields`).
   */
  fixedFields?(desired: KubeObject, observed: KubeObject): string[];
}

/**
 * What a create asks of the host beyond the desired object: fields the host allocates that the
 * tenant already has (a Service's cluster IPs), sent with the create only, never compared or
 * updated afterwards. When the host refuses them, the copy is created without them.
 */
export interface CreateAsk {
  /** Spec fields sent with the create; absent: nothing asked (`why` says why, if anything). */
  readonly spec?: Record<string, unknown>;
  /** Why nothing is asked, for the Create's Decision. */
  readonly why?: string;
  /** The host's refusal of the ask in its words, when `error` is one; else the error stands. */
  refused(error: unknown): string | undefined;
}

/** The traits of a kind that adds nothing to the generic write path. */
export const GENERIC_WRITES: WriteTraits = {};
