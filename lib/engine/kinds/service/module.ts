/**
 * The Service's module: selectors scoped, allocations left to the host, the tenant's cluster IPs
 * asked for and the tenant realigned when the host gives others, status back. The endpoints a
 * selector-less Service is given by hand have rooms of their own (`../endpoint-slice/`,
 * `../endpoints/`).
 */
import { isRecord } from '../../../common/index.js';
import { type HostOwnedFields, simpleSpecFields } from '../../object/kind-traits.js';
import type { KindModule } from '../frame/kind-module.js';
import type { StatusBackRule } from '../frame/status-patch.js';
import type { ServiceFacts } from './facts.js';
import { nameserverHold } from './nameserver-hold.js';
import { SERVICE_TRANSLATOR } from './service.js';
import { serviceTurn } from './service-turn.js';

type Json = Record<string, unknown>;

function specOf(object: Json): Json | undefined {
  return isRecord(object.spec) ? object.spec : undefined;
}

const serviceFields = simpleSpecFields([
  'clusterIP',
  'clusterIPs',
  'healthCheckNodePort',
  'ipFamilies',
  'ipFamilyPolicy',
]);

/** What the host allocates for a Service: its cluster IPs, IP families and node ports. */
export const SERVICE_HOST_OWNED: HostOwnedFields = {
  strip(object) {
    serviceFields.strip(object);
    const ports = specOf(object)?.ports;
    if (Array.isArray(ports)) for (const p of ports) if (isRecord(p)) delete p.nodePort;
  },
  restore(body, observed) {
    serviceFields.restore(body, observed);
    const ports = specOf(body)?.ports;
    const seen = specOf(observed)?.ports;
    if (!Array.isArray(ports) || !Array.isArray(seen)) return;
    // Node ports are matched by port and protocol, the identity the apiserver itself uses.
    for (const p of ports) {
      if (!isRecord(p) || p.nodePort !== undefined) continue;
      const match = seen.find(
        (s) => isRecord(s) && s.port === p.port && (s.protocol ?? 'TCP') === (p.protocol ?? 'TCP'),
      );
      if (isRecord(match) && match.nodePort !== undefined) p.nodePort = match.nodePort;
    }
  },
};

const SERVICE_STATUS: StatusBackRule = {
  kind: SERVICE_TRANSLATOR.kind,
  fields: ['loadBalancer', 'conditions'],
  // A load balancer may never come (no controller on the host): its address waits for a full
  // pass rather than holding the kind on full passes.
  settled: () => true,
};

/** Services. */
export const SERVICE_MODULE: KindModule<ServiceFacts> = {
  kind: SERVICE_TRANSLATOR.kind,
  translator: SERVICE_TRANSLATOR,
  hostOwned: SERVICE_HOST_OWNED,
  statusBack: SERVICE_STATUS,
  eventsBack: true,
  hostView: 'status',
  // The copy of a deleted tenant DNS stays while host Pods use its address (`nameserver-hold.ts`).
  gcHold: nameserverHold,
  startKind: (ctx, compiled) => serviceTurn(ctx, compiled, SERVICE_STATUS),
};
