/**
 * The {@link Ledger}: what a pass has done so far (Decisions, object errors, counts, warnings,
 * terminating copies, bookkeeping writes, what complete listings wanted during a move), changed
 * only through its methods.
 */
import type {
  DecisionAction,
  DecisionSink,
  KindRef,
  KubeObject,
  ObjectRef,
  PassWarning,
} from '../../ports/index.js';
import type { PassBounds } from '../bounds/budget.js';
import type { Throttle } from '../bounds/throttle.js';
import { type ResourceKey, resourceKey } from '../names/resource-key.js';
import { DecisionRecorder } from './decisions.js';
import { errorText, type Sensitivity } from './error-text.js';
import { KnownCopies } from './known-copies.js';
import { ObjectErrors } from './object-errors.js';

/** Progress after each page of a kind. */
export interface PassProgress {
  kind: string;
  /** Tenant objects of this kind listed so far. */
  listed: number;
  /** Writes started for this kind so far (dry runs count would-be writes). */
  written: number;
}

/** One Decision as a step states it; the ledger adds who decided it and when. */
export interface DecisionInput {
  action: DecisionAction;
  rule: KindRef;
  tenantRef: ObjectRef;
  hostRef: ObjectRef;
  reason: string;
  /** The write failed: the Decision stands as decided and is also an error of the pass. */
  error?: unknown;
  /** A delete that found its object gone already. */
  alreadyGone?: boolean;
}

/** What the pass has done so far; every change goes through a method. */
export class Ledger {
  readonly recorder: DecisionRecorder;
  readonly errors: ObjectErrors;
  /** Which kinds' errors withhold the server's message (`error-text.ts`). */
  readonly sensitive: Sensitivity;
  private readonly started = new Set<string>();
  private readonly seen: Record<string, number> = {};
  private readonly warned: PassWarning[] = [];
  /** Terminating copies, by apiVersion, kind, namespace and name: each counted once. */
  private readonly terminatingCopies = new Set<string>();
  /** Of them, the copies a tenant object still wants (see {@link countTerminating}). */
  private readonly wantedTerminating = new Set<string>();
  private bookkeepingWrites = 0;

  /** The sources that want a copy, by kind, of kinds listed completely (only during a move). */
  private readonly wanted = new Map<ResourceKey, ReadonlySet<string>>();

  /** The host copies this pass wrote, deleted or listed, of the kinds other kinds refer to. */
  readonly copies: KnownCopies;

  constructor(
    private readonly identity: {
      tenant: string;
      passId: string;
      dryRun: boolean;
      /** Keep what {@link listedWanted} is told (a namespace move waits for it). */
      keepWanted?: boolean;
      /** The kinds other kinds of the policy refer to (see {@link copies}). */
      referenced?: ReadonlySet<ResourceKey>;
      /** Which kinds' errors withhold the server's message (`error-text.ts`). */
      sensitive: Sensitivity;
    },
    bounds: PassBounds,
    sinks: readonly DecisionSink[],
    /** Hears how far each kind has come. */
    public onProgress?: (progress: PassProgress) => void,
  ) {
    this.recorder = new DecisionRecorder(sinks);
    this.copies = new KnownCopies(identity.referenced ?? new Set());
    this.errors = new ObjectErrors(bounds, identity.sensitive);
    this.sensitive = identity.sensitive;
    this.throttle = bounds.throttle;
  }

  /** The pass's back-off on 429: a Decision whose write waited says so. */
  private readonly throttle: Throttle;

  /**
   * Records a Decision; one whose write failed is also an error of the pass. One whose write was
   * answered 429 and sent again after waiting says so after its reason.
   */
  decide(input: DecisionInput): void {
    const { action, rule, tenantRef, hostRef, error, alreadyGone } = input;
    const waited = this.throttle.takeNote({ hostRef, tenantRef });
    const reason = waited === undefined ? input.reason : `${input.reason}; ${waited}`;
    this.recorder.record({
      action,
      tenant: this.identity.tenant,
      kind: rule.kind,
      apiVersion: rule.apiVersion,
      tenantRef,
      hostRef,
      reason,
      passId: this.identity.passId,
      dryRun: this.identity.dryRun,
      ...(error === undefined ? {} : { error: errorText(rule, error, this.sensitive) }),
      ...(alreadyGone === true ? { alreadyGone: true } : {}),
    });
    if (error !== undefined) this.errors.add(rule, error, tenantRef, hostRef);
    else if (action === 'Create' || action === 'Update' || action === 'Delete') {
      this.copies.wrote(rule, hostRef.name, action !== 'Delete');
    }
  }

  /**
   * A kind's tenant listing was complete: `sources` (source keys) are every source that wants a
   * copy. Kept only while a namespace move waits for it, so a steady pass holds no second copy.
   */
  listedWanted(rule: KindRef, sources: ReadonlySet<string>): void {
    if (this.identity.keepWanted === true) this.wanted.set(resourceKey(rule), sources);
  }

  /** The sources that want a copy of `rule`, when its listing was complete this pass. */
  wantedSources(rule: KindRef): ReadonlySet<string> | undefined {
    return this.wanted.get(resourceKey(rule));
  }

  /** A Decision a full pass of the same state would make again (see `DecisionRecorder.unsettled`). */
  unsettle(): void {
    this.recorder.unsettled += 1;
  }

  /** A kind's work began (so an incomplete pass can say which kinds it never reached). */
  startKind(rule: KindRef): void {
    this.started.add(resourceKey(rule));
    this.seen[rule.kind] ??= 0;
  }

  /** How many kinds' work began in this pass. */
  get kindsStarted(): number {
    return this.started.size;
  }

  /** Whether the kind's work began in this pass. */
  hasStarted(rule: KindRef): boolean {
    return this.started.has(resourceKey(rule));
  }

  /** One tenant object of `kind` was listed. */
  sawObject(kind: string): void {
    this.seen[kind] = (this.seen[kind] ?? 0) + 1;
  }

  /** Tenant objects seen, per kind started. */
  get objectsSeen(): Record<string, number> {
    return this.seen;
  }

  /**
   * A host copy found terminating (held by a host finalizer): left alone, counted once however
   * many paths meet it (apply and GC both do). `wanted`: a tenant object still wants it, so it
   * must be created anew once the host lets it go; its kind then keeps no resume point
   * ({@link terminatingWanted}), and the next pass is full.
   */
  countTerminating(copy: KubeObject, wanted?: 'wanted'): void {
    const { namespace, name } = copy.metadata;
    const key = `${copy.apiVersion}/${copy.kind}/${namespace ?? ''}/${name}`;
    this.terminatingCopies.add(key);
    if (wanted) this.wantedTerminating.add(key);
  }

  get terminating(): number {
    return this.terminatingCopies.size;
  }

  /** Terminating copies a tenant object still wants; only grows during a pass. */
  get terminatingWanted(): number {
    return this.wantedTerminating.size;
  }

  /** Something the operator must act on (one Warning Event each). */
  warn(warning: PassWarning): void {
    this.warned.push(warning);
  }

  get warnings(): readonly PassWarning[] {
    return this.warned;
  }

  /**
   * A write to the TenantCluster itself (finalizer, remembered kinds and namespaces): kept out of
   * `requests` like the status report, so `requests` is what the sync cost.
   */
  bookkept(): void {
    // A dry run's client answers writes without sending them: nothing to keep out of `requests`.
    if (!this.identity.dryRun) this.bookkeepingWrites += 1;
  }

  get bookkeeping(): number {
    return this.bookkeepingWrites;
  }

  /** Tells the caller how far a kind has come. */
  progress(progress: PassProgress): void {
    this.onProgress?.(progress);
  }
}
