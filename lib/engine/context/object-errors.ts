/**
 * Error aggregation: per-object and per-kind failures become entries of the pass result and
 * never abort the pass. A kind whose listing failed is also recorded as incomplete, which is what
 * keeps its garbage collection from running on a partial view.
 */
import {
  ClusterError,
  type ClusterRole,
  type KindRef,
  type ObjectError,
  type ObjectRef,
} from '../../ports/index.js';
import type { PassBounds } from '../bounds/budget.js';
import { stallNote } from '../bounds/deadlines.js';
import { errorText, type Sensitivity } from './error-text.js';

/** The API's reason for a failure (`NotFound`, `Forbidden`...), when it came from a cluster. */
export function clusterReason(error: unknown): string | undefined {
  return error instanceof ClusterError ? error.reason : undefined;
}

/** One ObjectError as a line of text (status.lastPass.errors, logs). */
export function formatObjectError(error: ObjectError): string {
  const ref = error.tenantRef ?? error.hostRef;
  const where = ref ? `${error.kind} ${ref.namespace}/${ref.name}` : error.kind;
  const reason = error.reason ? ` (${error.reason})` : '';
  return `${where}: ${error.message}${reason}`;
}

/** The failures of one pass, and the kinds it could not finish. */
export class ObjectErrors {
  readonly errors: ObjectError[] = [];
  /**
   * `<Kind>: <why>` for every kind left unfinished, and `the <side> cluster stalled (...)` once per
   * cluster that stopped answering; non-empty makes the pass incomplete.
   */
  readonly incompleteKinds: string[] = [];
  private readonly stalled = new Set<ClusterRole>();

  /**
   * A 429 among the errors stops the pass (see {@link PassBounds.backOffIfThrottled});
   * `sensitive` says which kinds' errors withhold the server's message.
   */
  constructor(
    private readonly bounds: PassBounds,
    private readonly sensitive: Sensitivity,
  ) {}

  /** Records one object's (or one kind's) failure. */
  add(kind: KindRef, error: unknown, tenantRef?: ObjectRef, hostRef?: ObjectRef): void {
    const entry: ObjectError = { kind: kind.kind, message: errorText(kind, error, this.sensitive) };
    if (tenantRef) entry.tenantRef = tenantRef;
    if (hostRef) entry.hostRef = hostRef;
    const reason = clusterReason(error);
    if (reason) entry.reason = reason;
    this.errors.push(entry);
    this.bounds.backOffIfThrottled(error);
    // Object errors come from host requests (writes, re-reads); the tenant is only listed.
    this.noteStall('host', error);
  }

  /** A server that stopped answering stops the pass (more requests would only wait too). */
  private noteStall(side: ClusterRole, error: unknown): void {
    const note = stallNote(side, error);
    if (note === undefined || this.stalled.has(side)) return;
    this.stalled.add(side);
    this.incompleteKinds.push(note);
    this.bounds.halt(`${note}, so the pass stopped early`);
  }

  /** A kind's listing failed: one error naming the side, and the kind is left incomplete. */
  listingFailed(kind: KindRef, side: ClusterRole, error: unknown, why: string): void {
    this.errors.push({
      kind: kind.kind,
      message: `listing ${side} ${kind.kind} objects failed: ${errorText(kind, error, this.sensitive)}`,
      reason: clusterReason(error) ?? 'Unknown',
    });
    this.bounds.backOffIfThrottled(error);
    this.noteStall(side, error);
    this.kindIncomplete(kind, why);
  }

  /** Marks a kind unfinished this pass (its GC did not run), with the reason. */
  kindIncomplete(kind: KindRef, why: string): void {
    this.incompleteKinds.push(`${kind.kind}: ${why}`);
  }
}
