/**
 * The Service kind's turn: the status back (`../status-back.ts`), with two additions for aligned
 * cluster IPs (docs/names-and-addresses.md). While the path runs, a page holding a Service that
 * has no host copy yet gets the host's service ranges as a host fact, so its create asks for the
 * tenant's address only where the host may give it (`cluster-ip.ts`). After the path, before the
 * status, a tenant Service whose copy has another address is realigned (`realign.ts`). A steady
 * pass (every Service with its copy, every address aligned) reads and writes nothing more.
 */
import type { KubeObject } from '../../../ports/index.js';
import type { PassContext } from '../../context/pass-context.js';
import { hostName } from '../../names/naming.js';
import type { CompiledKindRule } from '../../policy/scope.js';
import type { KindTurn } from '../frame/kind-module.js';
import { statusBackTurn } from '../frame/status-back.js';
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
  const base = statusBackTurn(ctx, compiled, statusRule, realign.run);
  // The host copies a full path listed; a resumed path lists none, so its changed Services are
  // taken as possibly new.
  let copies: ReadonlySet<string> | undefined;
  const { tenant } = ctx.scope;
  const lacksCopy = (service: KubeObject): boolean => {
    const { namespace = '', name } = service.metadata;
    return copies === undefined || !copies.has(hostName(name, namespace, tenant));
  };
  return {
    ...base,
    listedHost: (hostObjects) => {
      copies = new Set(hostObjects.map((o) => o.metadata.name));
      base.listedHost?.(hostObjects);
    },
    hostFacts: async (services) => {
      if (!services.some((s) => alignable(s) && lacksCopy(s))) return undefined;
      return { serviceRanges: await ranges.get() };
    },
  };
}
