/**
 * The Ingress translator. Everything an Ingress refers to is an object of its own namespace, so
 * on the host it names that object's host copy: every rule backend (a Service, or a `resource`
 * such as a storage bucket's custom object), each TLS `secretName`, and the Secret-naming
 * annotations of common controllers (nginx `auth-secret`, `auth-tls-secret`, `proxy-ssl-secret`:
 * `name` or `namespace/name`). What it may claim on the host's shared controllers (hosts, class,
 * annotations; no catch-all) is `ingress-limits.ts`; an allowed `ingressClassName` is kept.
 */
import { isRecord } from '../../../common/index.js';
import { INGRESS, type KubeObject, SECRET, SERVICE } from '../../../ports/index.js';
import { INGRESS_SECRET_ANNOTATIONS } from '../../names/metadata.js';
import { hostName } from '../../names/naming.js';
import type { KindModule } from '../frame/kind-module.js';
import { statusBackTurn } from '../frame/status-back.js';
import type { StatusBackRule } from '../frame/status-patch.js';
import type { KindTranslator, ObjectReference, TranslateTarget } from '../frame/translator.js';
import type { IngressFacts } from './facts.js';
import { ingressHostFacts } from './ingress-hosts.js';
import { ingressRefusal } from './ingress-limits.js';

/** Every backend of an Ingress spec (default first), with where it is. */
function backendsOf(spec: unknown): Array<{ backend: Record<string, unknown>; path: string }> {
  if (!isRecord(spec)) return [];
  const found: Array<{ backend: Record<string, unknown>; path: string }> = [];
  if (isRecord(spec.defaultBackend)) {
    found.push({ backend: spec.defaultBackend, path: 'spec.defaultBackend' });
  }
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  rules.forEach((rule, r) => {
    const http = isRecord(rule) ? rule.http : undefined;
    const paths = isRecord(http) && Array.isArray(http.paths) ? http.paths : [];
    paths.forEach((p, i) => {
      if (isRecord(p) && isRecord(p.backend)) {
        found.push({ backend: p.backend, path: `spec.rules[${r}].http.paths[${i}].backend` });
      }
    });
  });
  return found;
}

function tlsOf(spec: unknown): Record<string, unknown>[] {
  if (!isRecord(spec) || !Array.isArray(spec.tls)) return [];
  return spec.tls.filter(isRecord);
}

function rename(holder: unknown, target: TranslateTarget<IngressFacts>): void {
  if (isRecord(holder) && typeof holder.name === 'string') {
    holder.name = hostName(holder.name, target.virtualNamespace, target.tenant);
  }
}

/** `name` or `namespace/name` of a Secret, as the host copy's `namespace/name` or name. */
function renameAnnotation(value: string, target: TranslateTarget<IngressFacts>): string {
  const slash = value.indexOf('/');
  if (slash < 0) return hostName(value, target.virtualNamespace, target.tenant);
  const namespace = value.slice(0, slash);
  return `${target.hostNamespace}/${hostName(value.slice(slash + 1), namespace, target.tenant)}`;
}

/** The host Ingress: backends, TLS Secrets and Secret-naming annotations renamed. */
export function ingressToHost(
  object: KubeObject,
  target: TranslateTarget<IngressFacts>,
): KubeObject {
  for (const { backend } of backendsOf(object.spec)) {
    rename(backend.service, target);
    rename(backend.resource, target);
  }
  for (const tls of tlsOf(object.spec)) {
    if (typeof tls.secretName === 'string') {
      tls.secretName = hostName(tls.secretName, target.virtualNamespace, target.tenant);
    }
  }
  const annotations = object.metadata.annotations;
  if (annotations) {
    for (const key of INGRESS_SECRET_ANNOTATIONS) {
      const value = annotations[key];
      if (value !== undefined && value !== '') annotations[key] = renameAnnotation(value, target);
    }
  }
  return object;
}

/**
 * The Services and Secrets an Ingress names, all optional: an Ingress may exist before its
 * backends (the controller answers 503 until they do), so they only order the pass.
 */
export function ingressReferences(source: KubeObject): ObjectReference[] {
  const refs: ObjectReference[] = [];
  for (const { backend, path } of backendsOf(source.spec)) {
    const service = backend.service;
    if (isRecord(service) && typeof service.name === 'string') {
      refs.push({ ...SERVICE, name: service.name, path: `${path}.service`, optional: true });
    }
  }
  tlsOf(source.spec).forEach((tls, i) => {
    if (typeof tls.secretName === 'string') {
      refs.push({
        ...SECRET,
        name: tls.secretName,
        path: `spec.tls[${i}].secretName`,
        optional: true,
      });
    }
  });
  return refs;
}

/** Ingresses: within the policy's limits; every backend and Secret they name is the host copy. */
export const INGRESS_TRANSLATOR: KindTranslator<IngressFacts> = {
  kind: INGRESS,
  referencedKinds: [SERVICE, SECRET],
  refusal: ingressRefusal,
  toHost: ingressToHost,
  references: ingressReferences,
};

const INGRESS_STATUS: StatusBackRule = {
  kind: INGRESS_TRANSLATOR.kind,
  fields: ['loadBalancer'],
  // A load balancer may never come (no controller on the host): not waited for.
  settled: () => true,
};

/**
 * Ingresses: their status (the load balancer address) and host Events come back; the turn reads
 * the hosts other Ingresses of the host namespace serve for the translator (`ingress-hosts.ts`).
 */
export const INGRESS_MODULE: KindModule<IngressFacts> = {
  kind: INGRESS_TRANSLATOR.kind,
  translator: INGRESS_TRANSLATOR,
  statusBack: INGRESS_STATUS,
  eventsBack: true,
  hostView: 'status',
  startKind: (ctx, compiled) => ({
    ...statusBackTurn(ctx, compiled, INGRESS_STATUS),
    hostFacts: ingressHostFacts(ctx),
  }),
};
