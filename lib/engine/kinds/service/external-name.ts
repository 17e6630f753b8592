/**
 * ExternalName targets. An ExternalName Service is a CNAME in the host's DNS: the host name of
 * the copy answers with the target, and an ingress controller or a mesh that follows a Service to
 * its ExternalName proxies public requests there, from inside the host network. So a target
 * reaches the host only when `spec.workloads.services.externalNames` allows it (exact names, or
 * suffixes starting with a dot; default none: every ExternalName Service is refused).
 *
 * Some targets are refused even under a suffix that covers them, unless an entry names them
 * exactly ({@link isHostInternalName}): addresses written as names (`169.254.169.254`, the cloud
 * metadata endpoint; `2852039166`, which a resolver's `inet_aton` reads as the same address) and
 * names the host's own DNS or cloud answers (`kubernetes.default…`, the host apiserver;
 * `*.svc` and `*.svc.<domain>`, any host Service, another tenant's copies included;
 * `*.cluster.local`; `localhost`; `metadata` and `*.internal`, the metadata server and the cloud
 * names of the host's nodes). A suffix such as `.local` or `.internal` written for the operator's
 * own names must not open them by accident.
 */
import { allowedName, type ServiceLimits } from '../../policy/isolation.js';

/** Where the knob lives, for the Skips. */
const KNOB = 'spec.workloads.services.externalNames';

/** The name in one spelling: lower case, without the root's trailing dot. */
function normal(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * Whether `name` is an address or a name the host network answers itself (see the module doc).
 * An address: an IPv6 literal, or a name whose last label is a number (decimal, octal or hex, as
 * `inet_aton` reads them; no top-level domain is numeric).
 */
export function isHostInternalName(name: string): boolean {
  const n = normal(name);
  const last = n.split('.').at(-1) ?? '';
  if (n.includes(':') || /^(?:\d+|0x[0-9a-f]*)$/.test(last)) return true;
  if (n === 'kubernetes' || n === 'kubernetes.default' || n.startsWith('kubernetes.default.'))
    return true;
  if (n === 'svc' || n.endsWith('.svc') || n.includes('.svc.')) return true;
  if (n === 'localhost' || n.endsWith('.localhost')) return true;
  if (n === 'metadata' || n === 'internal' || n.endsWith('.internal')) return true;
  return n === 'cluster.local' || n.endsWith('.cluster.local');
}

/**
 * What is wrong with the Service's ExternalName target under `limits`, or `undefined` (no target,
 * or an allowed one). Checked whatever the type: a target written on a Service of another type
 * is still the tenant's to ask for.
 */
export function externalNameProblem(
  spec: Record<string, unknown>,
  limits: ServiceLimits,
): string | undefined {
  const target = spec.externalName;
  if (target === undefined || target === null || target === '') return undefined;
  if (typeof target !== 'string') return `spec.externalName must be a name`;
  const quoted = JSON.stringify(target);
  if (isHostInternalName(target)) {
    const exact = limits.externalNames.some((entry) => normal(entry) === normal(target));
    if (exact) return undefined;
    return `spec.externalName ${quoted} is an address or a name the host network answers itself (the metadata endpoint, the host apiserver, a host Service), refused unless ${KNOB} names it exactly`;
  }
  if (allowedName(target, limits.externalNames)) return undefined;
  return `spec.externalName ${quoted} is not allowed (add it, or a suffix such as ".example.com", to ${KNOB})`;
}
