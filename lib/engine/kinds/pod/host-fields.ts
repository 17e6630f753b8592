/**
 * The Pod turn's facts: the tenant DNS address (`tenant-dns.ts`) and the Pod fields the host
 * serves (`../../tenant/host-pod-schema.ts`), the latter read on a full pass (the last read on a
 * resumed one) and handed on only when the host lacks a field the engine knows: on a host that
 * serves them all, the Pods keep the in-sync memo (objects translated with facts are never
 * answered from it).
 */
import type { PassContext } from '../../context/pass-context.js';
import { type HostPodSchema, hostPodSchemaForPass } from '../../tenant/host-pod-schema.js';
import type { KindTurn } from '../frame/kind-module.js';
import type { PodFacts } from './facts.js';
import { unservedPodFields } from './fields/host-served.js';
import { tenantDnsFacts } from './tenant-dns.js';

/** The Pod turn's `hostFacts`; `full`: the kind runs its full path (it reads the schema). */
export function podHostFacts(ctx: PassContext, full: boolean): KindTurn<PodFacts>['hostFacts'] {
  const dns = tenantDnsFacts(ctx);
  const { hostApi, hostNamespace, tenant } = ctx.scope;
  let lacking: Promise<HostPodSchema | undefined> | undefined;
  const schema = () => {
    lacking ??= hostPodSchemaForPass(hostApi, `${hostNamespace}/${tenant}`, full).then((read) =>
      read && 'served' in read && unservedPodFields(read).length > 0 ? read : undefined,
    );
    return lacking;
  };
  return async (tenantObjects) => {
    const [dnsFacts, hostPodSchema] = await Promise.all([
      dns ? dns(tenantObjects) : undefined,
      tenantObjects.length > 0 ? schema() : undefined,
    ]);
    if (!dnsFacts && !hostPodSchema) return undefined;
    return { ...dnsFacts, ...(hostPodSchema ? { hostPodSchema } : {}) };
  };
}
