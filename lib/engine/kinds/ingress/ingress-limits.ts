/**
 * What a tenant Ingress may claim on the host (`spec.workloads.ingresses`). A host Ingress is
 * served by a controller every tenant of the host shares, with the host's authority: its hosts
 * take traffic, its class picks the controller, its annotations configure it (nginx snippets run
 * as the controller, ALB `group.name` joins another load balancer). So, each refused with a Skip
 * that names the field and the knob that would allow it:
 *
 * - every host (`spec.rules[].host`, `spec.tls[].hosts[]`) must be allowed by `hostSuffixes`
 *   (exact hosts, or suffixes starting with a dot; a wildcard host such as `*.shop.example.com`
 *   is checked as written, so `.example.com` allows it); a host another Ingress of the host
 *   namespace named first is refused (`ingress-hosts.ts`);
 * - a rule without a host, a TLS entry without hosts and `spec.defaultBackend` answer for every
 *   host the controller serves (a catch-all): refused, whatever the policy;
 * - `spec.ingressClassName` (and the legacy `kubernetes.io/ingress.class` annotation) must be one
 *   of `classes`. Without a class the host's default class serves the Ingress: allowed while
 *   `classes` is empty (the default), refused once the policy lists classes (the default class
 *   may not be one of them; the tenant names one instead);
 * - every annotation the copy would carry must be allowed by `annotations`, but the Secret-naming
 *   ones the translator renames to this tenant's copies (`INGRESS_SECRET_ANNOTATIONS`) and those
 *   the copy never carries (reserved keys, `kubectl.kubernetes.io/last-applied-configuration`,
 *   keys the rule's exclusions drop).
 */
import { isRecord } from '../../../common/index.js';
import type { KubeObject } from '../../../ports/index.js';
import {
  DROPPED_TENANT_ANNOTATIONS,
  INGRESS_SECRET_ANNOTATIONS,
  isReservedKey,
} from '../../names/metadata.js';
import { allowedKey, allowedName, type IngressLimits } from '../../policy/isolation.js';
import { isolationOf } from '../../policy/workloads.js';
import type { TranslateTarget } from '../frame/translator.js';
import type { IngressFacts } from './facts.js';
import { namedHosts, takenBy } from './ingress-hosts.js';

/** The legacy class annotation, checked as a class. */
export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

const KNOB = 'spec.workloads.ingresses';

function listed(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}

function classRefusal(
  spec: Record<string, unknown>,
  source: KubeObject,
  target: TranslateTarget<IngressFacts>,
  limits: IngressLimits,
): string | undefined {
  const { classes } = limits;
  // The legacy annotation counts unless the rule's exclusions keep it off the copy.
  const legacy = target.excludeKeys?.annotations?.(LEGACY_CLASS_ANNOTATION)
    ? undefined
    : source.metadata.annotations?.[LEGACY_CLASS_ANNOTATION];
  const named: Array<[string, unknown]> = [
    ['spec.ingressClassName', spec.ingressClassName],
    [`the annotation ${LEGACY_CLASS_ANNOTATION}`, legacy],
  ];
  let any = false;
  for (const [field, value] of named) {
    if (value === undefined || value === null) continue;
    any = true;
    if (typeof value !== 'string' || !classes.includes(value)) {
      return `${field} "${String(value)}" is not a class the policy allows (${KNOB}.classes: ${listed(classes)}); the class picks the host controller that serves it`;
    }
  }
  if (!any && classes.length > 0) {
    return `spec.ingressClassName is not set, so the host's default class would serve it; name one the policy allows (${KNOB}.classes: ${listed(classes)})`;
  }
  return undefined;
}

function annotationRefusal(
  source: KubeObject,
  target: TranslateTarget<IngressFacts>,
  limits: IngressLimits,
): string | undefined {
  const excluded = target.excludeKeys?.annotations;
  for (const key of Object.keys(source.metadata.annotations ?? {})) {
    if (isReservedKey(key) || DROPPED_TENANT_ANNOTATIONS.includes(key) || excluded?.(key)) continue;
    if (INGRESS_SECRET_ANNOTATIONS.includes(key) || key === LEGACY_CLASS_ANNOTATION) continue;
    if (!allowedKey(key, limits.annotations)) {
      return `the annotation ${key} is not one the policy allows on a host Ingress (${KNOB}.annotations: ${listed(limits.annotations)}); the host's ingress controllers act on annotations with the host's authority`;
    }
  }
  return undefined;
}

/** A rule, TLS entry or default backend that answers for every host, or `undefined`. */
function catchAllRefusal(spec: Record<string, unknown>): string | undefined {
  const everyHost = "would answer for every host the host's ingress controller serves";
  if (spec.defaultBackend !== undefined && spec.defaultBackend !== null) {
    return `spec.defaultBackend ${everyHost}, other tenants' included; write a rule with a host instead`;
  }
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  for (const [r, rule] of rules.entries()) {
    if (!isRecord(rule) || typeof rule.host !== 'string' || rule.host === '') {
      return `the rule spec.rules[${r}] has no host, so it ${everyHost}, other tenants' included; set its host`;
    }
  }
  const tls = Array.isArray(spec.tls) ? spec.tls : [];
  for (const [t, entry] of tls.entries()) {
    if (!isRecord(entry) || !Array.isArray(entry.hosts) || entry.hosts.length === 0) {
      return `the TLS entry spec.tls[${t}] names no hosts, so it ${everyHost}; list its hosts`;
    }
  }
  return undefined;
}

/** Why a tenant Ingress must not go to the host (see the file's comment), or `undefined`. */
export function ingressRefusal(
  source: KubeObject,
  target: TranslateTarget<IngressFacts>,
): string | undefined {
  const spec = isRecord(source.spec) ? source.spec : {};
  const limits = isolationOf(target.workloads).ingresses;
  const refused =
    classRefusal(spec, source, target, limits) ??
    annotationRefusal(source, target, limits) ??
    catchAllRefusal(spec);
  if (refused !== undefined) return refused;
  const hosts = namedHosts(spec);
  for (const { host, path } of hosts) {
    if (!allowedName(host, limits.hostSuffixes)) {
      return `${path} "${host}" is not a host the policy allows (${KNOB}.hostSuffixes: ${listed(limits.hostSuffixes)})`;
    }
  }
  const claims = target.ingressHosts;
  if (hosts.length > 0 && claims === undefined) {
    return "the host namespace's Ingresses were not read, so whether another serves its hosts is not known";
  }
  for (const { host, path } of hosts) {
    const taken = claims && takenBy(host, claims);
    if (taken !== undefined) return `${path} "${host}" ${taken}`;
  }
  return undefined;
}
