/**
 * The Service translator. A Service's selector is scoped to its tenant and virtual namespace, so
 * on a host namespace shared with other virtual namespaces and tenants it selects its own Pods
 * only. What the host allocates (`clusterIP(s)`, `ipFamilies`, `ipFamilyPolicy`, node ports) is
 * host-owned: the generic transform strips it and carries the host's values over on update
 * (`../transform.ts`), so an update never fights the host's allocation. `clusterIP: None` is the
 * one cluster IP that is the tenant's choice, not an allocation: kept, so a headless Service
 * stays headless (and its DNS answers Pod addresses, not a virtual IP). A Service that reaches
 * beyond its tenant (a type, an address, a load balancer, an ExternalName target, a controller's
 * annotation the policy does not allow) is refused: `service-limits.ts`.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, SERVICE } from '../../../ports/index.js';
import { scopeSelectorMap } from '../frame/selectors.js';
import type { CreateAsk, KindTranslator, TranslateTarget } from '../frame/translator.js';
import { askRefusal, clusterIpAsk } from './cluster-ip.js';
import type { ServiceFacts } from './facts.js';
import { serviceRefusal } from './service-limits.js';

/** The cluster IP that asks for a headless Service. */
const HEADLESS = 'None';

/**
 * The host Service: the selector scoped (a Service without a selector stays without one: its
 * endpoints are the tenant's own EndpointSlices, `../endpoint-slice/endpoint-slice.ts`); `clusterIP: None` kept.
 */
export function serviceToHost(
  object: KubeObject,
  target: TranslateTarget<ServiceFacts>,
): KubeObject {
  const spec = object.spec;
  const tenantSpec = target.source.spec;
  if (!isRecord(spec) || !isRecord(tenantSpec)) return object;
  if (isRecord(tenantSpec.selector) && Object.keys(tenantSpec.selector).length > 0) {
    spec.selector = scopeSelectorMap(tenantSpec.selector, {
      tenant: target.tenant,
      virtualNamespace: target.virtualNamespace,
    });
  }
  if (tenantSpec.clusterIP === HEADLESS) spec.clusterIP = HEADLESS;
  return object;
}

/**
 * What a Service's host copy asks for at create: the tenant's cluster IPs, when the host's ranges
 * were read for it (`HostFacts.serviceRanges`) and they hold them outside their static band.
 */
export function serviceCreateAsk(
  source: KubeObject,
  target: TranslateTarget<ServiceFacts>,
): CreateAsk | undefined {
  const decided = clusterIpAsk(source, target.serviceRanges);
  if ('ask' in decided) return { spec: decided.ask, refused: askRefusal };
  return decided.why === undefined ? undefined : { why: decided.why, refused: () => undefined };
}

/**
 * Services: selectors scoped, headless kept, allocations left to the host (the tenant's cluster
 * IPs asked for at create), what reaches beyond the tenant refused.
 */
export const SERVICE_TRANSLATOR: KindTranslator<ServiceFacts> = {
  kind: SERVICE,
  refusal: serviceRefusal,
  toHost: serviceToHost,
  createAsk: serviceCreateAsk,
};
