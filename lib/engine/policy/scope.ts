/**
 * Scope: what a pass never syncs, whatever the policy says (the tenant system namespaces, tenant
 * credentials, the tenant apiserver's own Service), and what a rule's exclusions leave out.
 * Exclusion is policy, not a refusal, so it makes no Decision; a copy already on the host of an
 * object now out of scope is garbage-collected like one whose source is gone.
 */
import type { KubeObject } from '../../ports/index.js';
import { compileKeyExclusions, type KeyExclusions } from './key-exclusions.js';
import { type LabelSelector, matchesLabelSelector, parseLabelSelector } from './label-selector.js';
import type { KindRule } from './policy.js';
import { TENANT_SYSTEM_NAMESPACES } from './system-namespaces.js';

export { TENANT_SYSTEM_NAMESPACES };

/** A KindRule prepared for matching many objects (the selector parsed once). */
export interface CompiledKindRule {
  rule: KindRule;
  namespaces: ReadonlySet<string>;
  names: ReadonlySet<string>;
  selector: LabelSelector | undefined;
  /** Label and annotation keys kept off the host. */
  excludeKeys: KeyExclusions;
}

/** Prepares a rule for {@link isExcluded}. */
export function compileKindRule(rule: KindRule): CompiledKindRule {
  const selector = rule.exclude?.labelSelector;
  return {
    rule,
    namespaces: new Set(rule.exclude?.namespaces ?? []),
    names: new Set(rule.exclude?.names ?? []),
    selector: selector === undefined ? undefined : parseLabelSelector(selector),
    excludeKeys: compileKeyExclusions(rule.exclude),
  };
}

/**
 * Objects that never leave the tenant, whatever the policy says. Tenant credentials: the
 * `kube-root-ca.crt` ConfigMap every namespace gets and service-account token Secrets. And the
 * tenant control plane's own `default/kubernetes` Service and Endpoints, which point at the
 * tenant apiserver and mean nothing on the host.
 */
export function isAlwaysExcluded(object: KubeObject): boolean {
  if (object.apiVersion !== 'v1') return false;
  const { namespace, name } = object.metadata;
  switch (object.kind) {
    case 'ConfigMap':
      return name === 'kube-root-ca.crt';
    case 'Secret':
      return object.type === 'kubernetes.io/service-account-token';
    case 'Service':
    case 'Endpoints':
      return namespace === 'default' && name === 'kubernetes';
    default:
      return false;
  }
}

/** True when the tenant object lives in a tenant system namespace. */
export function isSystemNamespace(namespace: string | undefined): boolean {
  return namespace !== undefined && TENANT_SYSTEM_NAMESPACES.includes(namespace);
}

/**
 * True when the policy keeps `object` off the host: system namespace, built-in credential
 * exclusion, or the rule's own exclusions. Exclusion is policy, not a refusal, so it makes no
 * Decision.
 */
export function isExcluded(rule: CompiledKindRule, object: KubeObject): boolean {
  const { namespace, name, labels } = object.metadata;
  if (isSystemNamespace(namespace)) return true;
  if (isAlwaysExcluded(object)) return true;
  if (namespace !== undefined && rule.namespaces.has(namespace)) return true;
  if (rule.names.has(name)) return true;
  return rule.selector !== undefined && matchesLabelSelector(rule.selector, labels);
}

/**
 * True when `object` is out of scope by what never changes while a policy holds: its namespace
 * (a tenant system namespace or an excluded one), its name, or a built-in credential exclusion.
 * Only the label selector can take an object out of scope (or back in) without a policy change,
 * so a resumed pass may drop these changes before reading anything on the host: a copy of such
 * an object cannot exist since the resume point (a policy change makes the pass full).
 */
export function isStaticallyExcluded(rule: CompiledKindRule, object: KubeObject): boolean {
  const { namespace, name } = object.metadata;
  if (isSystemNamespace(namespace) || isAlwaysExcluded(object)) return true;
  return (namespace !== undefined && rule.namespaces.has(namespace)) || rule.names.has(name);
}
