/**
 * The one writer of the engine's copies of host objects in the tenant (the tenant Nodes of the host
 * nodes a tenant's Pods run on, the tenant copies of host classes): cluster-scoped, named as on the
 * host, one Decision per write. A delete that finds its copy gone is `alreadyGone`; one refused by
 * its preconditions (the copy changed after it was listed) is a Skip the next pass decides again.
 */
import { isClusterError, type KindRef, type ObjectRef } from '../../ports/index.js';
import { attempt } from '../errors.js';
import type { PassContext } from './pass-context.js';

/** What a write of a tenant copy came to. */
export type CopyWritten = 'written' | 'gone' | 'changed' | 'failed';

/** The tenant and host references of a cluster-scoped copy: the same name on both sides. */
export function copyRefs(name: string): { tenantRef: ObjectRef; hostRef: ObjectRef } {
  return { tenantRef: { namespace: '', name }, hostRef: { namespace: '', name } };
}

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

  /** Records a Decision about the copy `name`. */
  decide(
    action: 'Create' | 'Update' | 'Delete' | 'Skip',
    name: string,
    reason: string,
    extra: { error?: unknown; alreadyGone?: true } = {},
  ): void {
    this.ctx.ledger.decide({ action, rule: this.kind, ...copyRefs(name), reason, ...extra });
  }

  /** Runs the request of one Decision; a failure is its error, never the pass's end. */
  async write(
    action: 'Create' | 'Update' | 'Delete',
    name: string,
    reason: string,
    request: () => Promise<unknown>,
  ): Promise<CopyWritten> {
    const sent = await attempt(request);
    if (sent.ok) {
      this.decide(action, name, reason);
      return 'written';
    }
    const { error } = sent;
    if (action === 'Delete' && isClusterError(error, 'NotFound')) {
      this.decide(action, name, reason, { alreadyGone: true });
      return 'gone';
    }
    if (action === 'Delete' && isClusterError(error, 'Conflict')) {
      const skip = `${reason}, but the ${this.what} changed after it was listed: the next pass decides again`;
      this.decide('Skip', name, skip);
      return 'changed';
    }
    this.decide(action, name, reason, { error });
    return 'failed';
  }
}
