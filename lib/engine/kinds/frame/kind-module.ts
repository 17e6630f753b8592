/**
 * The shape of a kind's room: everything a kind adds to the generic path, in one object the
 * registry (`registry.ts`) lists. The generic steps below (`object/`, `listing/`) receive the
 * parts they need as arguments; the pipeline (`pipeline/`) calls the module at fixed points and is
 * never called back.
 */
import type { KindRef, KubeObject } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import type { GcHold } from '../../gc/gc.js';
import type { HostView } from '../../listing/host-view.js';
import type { HostOwnedFields } from '../../object/kind-traits.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import type { WorkloadPolicy } from '../../policy/workloads.js';
import type { ResumePoint } from '../../tenant/status.js';
import type { StatusBackRule } from './status-patch.js';
import type { HostFacts, KindTranslator } from './translator.js';

/** What the kind's path did, as its module's after-kind step needs it. */
export interface KindOutcome {
  /** Whether the kind decided any write (tried or not) on its path. */
  readonly wrote: boolean;
  /** Whether anything went wrong (errors, deferrals, a stop...) since the kind's path ended. */
  readonly troubledSince: () => boolean;
}

/**
 * One kind's turn in a pass, as its module runs it around the generic path: what the path tells
 * it while it runs (tenant objects taken in, the host listing), what it hands the path (host copies
 * read ahead), and the step that runs once after it.
 */
export interface KindTurn<F extends HostFacts = HostFacts> {
  /** Hears every tenant object the path took in (what it shows now). */
  readonly observe?: (tenantObject: KubeObject) => void;
  /** Hears the host namespace's listing of the kind, on a full path. */
  readonly listedHost?: (hostObjects: readonly KubeObject[]) => void;
  /** The kind's host copies, listed this pass already: a resumed path reads none by name. */
  readonly hostCopies?: Promise<KubeObject[] | undefined>;
  /**
   * What the translations of `tenantObjects` (a page, or a resumed path's changes) need read from
   * the host (`HostFacts`: an EndpointSlice's right to an address), awaited before they are taken
   * in; `undefined` when they need nothing. A turn reads each fact once a pass however often it
   * is asked. Objects translated with facts are never answered from the in-sync memo: the facts
   * can change while the tenant object and its copy stay as they were. A read that fails may
   * reject (once recorded): the path then takes in nothing more of the kind and skips its GC.
   */
  readonly hostFacts?: (tenantObjects: readonly KubeObject[]) => Promise<F | undefined>;
  /** Runs once after the path, with what it did. */
  afterKind(outcome: KindOutcome): Promise<void>;
}

/**
 * What one kind adds to the generic transform and path. Every member is optional but `kind`. `F`:
 * the facts its turn reads for its translator (`translator.ts`, `HostFacts`), declared in its room.
 */
export interface KindModule<F extends HostFacts = HostFacts> {
  /** The kind (its resource key is the registry's key). */
  readonly kind: KindRef;
  /** References renamed, selectors scoped, refusals, partial updates (`translator.ts`). */
  readonly translator?: KindTranslator<F>;
  /** Fields the host allocates: stripped from the desired object, kept from the host's copy. */
  readonly hostOwned?: HostOwnedFields;
  /**
   * Whether errors about the kind's objects must not carry the server's message, which may quote
   * them (a Secret's data): the policy can mark any kind so too (`context/error-text.ts`).
   */
  readonly sensitive?: true;
  /**
   * The fields of `observed` (the host copy) an update to `desired` would have to change although
   * the apiserver refuses it, by the kind's fixed rules (an immutable ConfigMap's data): the copy
   * is replaced instead (`object/replace.ts`). Other kinds learn it from a refused update.
   */
  readonly fixedFields?: (desired: KubeObject, observed: KubeObject) => string[];
  /** How the host copy's status comes back to the tenant object (`status-back.ts`). */
  readonly statusBack?: StatusBackRule;
  /**
   * Whether the kind's host copies change on their own in ways a pass brings back (their status,
   * the node they run on, their end): a follow watches them (`follow/triggers.ts`). Implied by
   * `statusBack`.
   */
  readonly hostChanges?: boolean;
  /** Whether host Events about the kind's copies come back to the tenant (`events/`). */
  readonly eventsBack?: boolean;
  /** What a pass keeps of a listed host copy (`listing/host-view.ts`); `compact` by default. */
  readonly hostView?: HostView;
  /**
   * For a kind whose terminating sources the engine ends itself (a Pod): the grace period its
   * copy is deleted with, or `undefined` for none set. Such a source is still observed.
   */
  readonly ending?: (source: KubeObject) => number | undefined;
  /**
   * Why a source must not get a new copy, or undefined; a copy it has is kept and updated (a Pod
   * that ran is not made anew once the host ended its copy; a claim of a storage class the policy
   * does not allow gets no copy, while one made before the policy said so keeps its data).
   */
  readonly noRecreate?: (source: KubeObject, workloads: WorkloadPolicy) => string | undefined;
  /** Copies the kind's garbage collection keeps although their sources are gone (`gc/gc.ts`). */
  readonly gcHold?: GcHold;
  /** Starts host reads of a kind that will resume from `point`, alongside the resumed watches. */
  readonly prefetch?: (ctx: PassContext, rule: KindRef, point: ResumePoint) => void;
  /** The kind's turn around the generic path; without it the path runs alone. */
  readonly startKind?: (ctx: PassContext, compiled: CompiledKindRule) => KindTurn<F>;
}
