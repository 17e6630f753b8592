/**
 * The Service kind's turn: the status back (`../frame/status-back.ts`), with two additions for
 * aligned cluster IPs (docs/names-and-addresses.md). While the path runs, a page holding a Service
 * that has no host copy yet gets the host's service ranges as a host fact, so its create asks for
 * the tenant's address only where the host may give it (`cluster-ip.ts`). After the path, here in
 * the turn: the host copies, then a tenant Service whose copy has another address is realigned
 * (`realign.ts`), then the status of the others. A steady pass (every Service with its copy, every
 * address aligned) reads and writes nothing more.
 */
import type { KubeObject } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { hostName } from '../../names/naming.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import type { KindTurn } from '../frame/kind-module.js';
import { copiesAfterPath, fullWhenUnsettled, StatusBack } from '../frame/status-back.js';
import type { StatusBackRule } from '../frame/status-patch.js';
import { alignable } from './cluster-ip.js';
import type { ServiceFacts } from './facts.js';
import { Realign } from './realign.js';
import { HostServiceRanges } from './service-ranges.js';

/** The Service kind's turn (see the module doc). */
export function serviceTurn(
  ctx: PassContext,
  compiled: CompiledKindRule,
  statusRule: StatusBackRule,
): KindTurn<ServiceFacts> {
  const ranges = new HostServiceRanges(ctx);
  const realign = new Realign(ctx, compiled.rule, () => ranges.get());
  const { rule } = compiled;
  const status = new StatusBack(ctx, rule, statusRule);
  let listed: readonly KubeObject[] | undefined;
  // The host copies a full path listed; a resumed path lists none, so its changed Services are
  // taken as possibly new.
  let copies: ReadonlySet<string> | undefined;
  const { tenant } = ctx.scope;
  const lacksCopy = (service: KubeObject): boolean => {
    const { namespace = '', name } = service.metadata;
    return copies === undefined || !copies.has(hostName(name, namespace, tenant));
  };
  return {
    observe: status.note,
    listedHost: (hostObjects) => {
      listed = hostObjects;
      copies = new Set(hostObjects.map((o) => o.metadata.name));
    },
    hostFacts: async (services) => {
      if (!services.some((s) => alignable(s) && lacksCopy(s))) return undefined;
      return { serviceRanges: await ranges.get() };
    },
    async afterKind({ wrote }) {
      if (!status.pending) return;
      const errors = ctx.ledger.errors.errors.length;
      const hostCopies = await copiesAfterPath(ctx, rule, listed, wrote);
      if (hostCopies !== undefined) {
        const pairs = status.pairs(hostCopies);
        // Realigned first: a Service recreated with its copy's address has its status written by
        // the next pass (the object read is gone).
        const replaced = await realign.run(pairs);
        await status.write(pairs, replaced);
      }
      fullWhenUnsettled(ctx, rule, { copies: hostCopies, unsettled: status.unsettled, errors });
    },
  };
}
