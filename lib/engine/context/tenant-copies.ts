/**
 * The one writer of the engine's copies of host objects in the tenant (the tenant Nodes of the host
 * nodes a tenant's Pods run on, the tenant copies of host classes and of the host Gateways a
 * tenant's routes may attach to): named as on the host, one Decision per write. A delete that finds its copy gone is `alreadyGone`; one refused by
 * its preconditions (the copy changed after it was listed) is a Skip the next pass decides again.
 */
import { isClusterError, type KindRef, type ObjectRef } from '../../ports/index.js';
import type { DecisionInput } from './ledger.js';
import type { PassContext } from './pass-context.js';
import { passWrite } from './step-write.js';

/** What a write of a tenant copy came to. */
export type CopyWritten = 'written' | 'gone' | 'changed' | 'failed';

/**
 * The tenant and host references of a copy: the same name (and namespace) on both sides; a bare
 * name is a cluster-scoped copy.
 */
export function copyRefs(at: string | ObjectRef): { tenantRef: ObjectRef; hostRef: ObjectRef } {
  const { namespace, name } = typeof at === 'string' ? { namespace: '', name: at } : at;
  return { tenantRef: { namespace, name }, hostRef: { namespace, name } };
}

/** A copy's name, or its namespace and name for a namespaced one. */
export type CopyAt = string | ObjectRef;

/** The writes of one kind of tenant copies in one pass. */
export class TenantCopyWriter {
  /**
   * @param what the copies in words, for a Skip's reason: `tenant Node`, `tenant class`.
   */
  constructor(
    private readonly ctx: PassContext,
    private readonly kind: KindRef,
    private readonly what: string,
  ) {}

  /** Records a Decision about the copy `name` (a namespaced copy: its reference). */
  decide(
    action: 'Create' | 'Update' | 'Delete' | 'Skip',
    name: CopyAt,
    reason: string,
    extra: { error?: unknown; alreadyGone?: true } = {},
  ): void {
    this.ctx.ledger.decide({ action, rule: this.kind, ...copyRefs(name), reason, ...extra });
  }

  /**
   * Runs the request of one Decision under the write budget (`budget.writes`, default 1; 0 inside a
   * unit whose writes are taken); a failure is its error, never the pass's end.
   * @returns what the write came to, or `deferred` when the budget had not the writes left.
   */
  async write(
    action: 'Create' | 'Update' | 'Delete',
    name: CopyAt,
    reason: string,
    request: () => Promise<unknown>,
    budget: { readonly writes?: number; readonly whenSpent?: () => void } = {},
  ): Promise<CopyWritten | 'deferred'> {
    let written: CopyWritten | 'deferred' = 'deferred';
    const decision = (input: Omit<DecisionInput, 'rule' | 'tenantRef' | 'hostRef'>) => ({
      ...input,
      rule: this.kind,
      ...copyRefs(name),
    });
    await passWrite(this.ctx, {
      ...budget,
      send: request,
      decide: (sent) => {
        if (sent.ok) {
          written = 'written';
          return decision({ action, reason });
        }
        const { error } = sent;
        if (action === 'Delete' && isClusterError(error, 'NotFound')) {
          written = 'gone';
          return decision({ action, reason, alreadyGone: true });
        }
        if (action === 'Delete' && isClusterError(error, 'Conflict')) {
          written = 'changed';
          const skip = `${reason}, but the ${this.what} changed after it was listed: the next pass decides again`;
          return decision({ action: 'Skip', reason: skip });
        }
        written = 'failed';
        return decision({ action, reason, error });
      },
    });
    return written;
  }
}
