/**
 * What a host namespace move keeps in the old namespace for now. A copy there is deleted only
 * when the new namespace holds its replacement (a copy of the same host name: names do not depend
 * on the host namespace) or when the kind's complete tenant listing shows its source no longer
 * wants a copy. So workloads that refer to a ConfigMap never lose it for the passes a budget
 * stretches the move over, and a source deleted meanwhile does not keep the old namespace forever.
 */
import type { KindRef, KubeObject } from '../../ports/index.js';
import type { PassContext } from '../context/pass-context.js';
import { attempt } from '../errors.js';
import { listHostObjects } from '../listing/host-listing.js';
import { sourceKey } from '../names/provenance.js';
import { isOurCopy, ourCopySource } from '../names/reverse-mapping.js';

/** The copies of one kind a move keeps in the old namespace this pass. */
export interface MoveHold {
  /** The namespace the tenant moved to. */
  readonly namespace: string;
  keeps(copy: KubeObject): boolean;
}

/**
 * The hold for `kind`, from the tenant's copies now in the policy's host namespace and what the
 * kind's listing wanted. A failed listing of the new namespace keeps every old copy: nothing is
 * deleted on a guess.
 */
export async function moveHold(ctx: PassContext, kind: KindRef): Promise<MoveHold> {
  const namespace = ctx.scope.hostNamespace;
  const owner = { tenant: ctx.scope.tenant, kind: kind.kind };
  let replaced: Set<string> | undefined;
  // A failed listing leaves nothing known replaced (a pass-level failure goes on up).
  const listed = await attempt(() => listHostObjects(ctx.scope, kind, namespace));
  if (listed.ok && listed.value) {
    replaced = new Set(
      listed.value
        .filter((o) => isOurCopy(o, owner) && !o.metadata.deletionTimestamp)
        .map((o) => o.metadata.name),
    );
  }
  const wanted = ctx.ledger.wantedSources(kind);
  return {
    namespace,
    keeps(copy) {
      if (!replaced) return true;
      if (replaced.has(copy.metadata.name)) return false;
      // Without a complete listing, whether the source still wants a copy is unknown: keep it.
      if (!wanted) return true;
      const source = ourCopySource(copy, owner);
      return (
        source !== undefined && wanted.has(sourceKey(source.virtualNamespace, source.virtualName))
      );
    },
  };
}
