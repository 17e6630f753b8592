/**
 * The Pod selectors of a Pod spec: its inter-Pod affinity and anti-affinity terms (required and
 * preferred) and its topology spread constraints. On the host every tenant Pod of every virtual
 * namespace (and of other tenants) shares one namespace, so a tenant term such as "not beside
 * `app: web`" would keep a Pod away from another tenant's Pods, and a spread constraint would
 * count them. Each selector is scoped (`selectors.ts`) to where it reaches in the tenant:
 *
 * - a term reaches its own virtual namespace, the namespaces it lists (`namespaces`), the
 *   namespaces its `namespaceSelector` selects (by `kubernetes.io/metadata.name` only: the host
 *   cannot see tenant namespace labels), or, for `namespaceSelector: {}`, every namespace of the
 *   tenant. Those become requirements on the virtual-namespace label of host Pods; the host term
 *   keeps neither field (its namespace is the host namespace, where every tenant Pod is). A
 *   term the host cannot express refuses the Pod, naming the term: a guess would place the Pod
 *   beside, or away from, Pods the tenant did not mean.
 * - a spread constraint counts Pods of the Pod's own namespace only: its virtual namespace.
 * - a term or constraint without a selector matches no Pods, and stays without one.
 * - `matchLabelKeys` and `mismatchLabelKeys` are dropped: the tenant apiserver already merged
 *   them into the selector, and the host merging them a second time is a 422 at create.
 *
 * Pure: inputs are never mutated.
 */
import { isRecord } from '../../../../common/index.js';
import { KubernetesKeys, Labels } from '../../../names/metadata.js';
import {
  type LabelSelectorRequirement,
  namespaceRequirements,
  scopeLabelSelector,
} from '../../frame/selectors.js';

type Json = Record<string, unknown>;

/** The tenant and virtual namespace of the Pod whose selectors are scoped. */
export interface PodScope {
  tenant: string;
  virtualNamespace: string;
}

/** The two Pod-to-Pod affinity kinds of `spec.affinity` (node affinity selects nodes: kept). */
const POD_AFFINITIES = ['podAffinity', 'podAntiAffinity'] as const;
const REQUIRED = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREFERRED = 'preferredDuringSchedulingIgnoredDuringExecution';

/** Where a term reaches, as {@link scopeLabelSelector} takes it, or why the host cannot say. */
type Reach = { virtualNamespace: string | LabelSelectorRequirement[] } | { refused: string };

/**
 * The virtual namespaces a term reaches: the Kubernetes rule is the union of `namespaces` and
 * what `namespaceSelector` selects, the Pod's own namespace when both are empty or absent.
 */
function reachOf(namespaces: unknown, namespaceSelector: unknown, own: string): Reach {
  const names = Array.isArray(namespaces)
    ? [...new Set(namespaces.filter((n): n is string => typeof n === 'string' && n !== ''))]
    : [];
  const byName: LabelSelectorRequirement[] =
    names.length > 0 ? [{ key: Labels.VirtualNamespace, operator: 'In', values: names }] : [];
  if (!isRecord(namespaceSelector)) {
    return { virtualNamespace: names.length > 0 ? byName : own };
  }
  const selected = namespaceRequirements(namespaceSelector);
  if ('refused' in selected) return selected;
  const { requirements } = selected;
  // `{}` selects every namespace, so the union with any list is every namespace of the tenant.
  if (requirements.length === 0 || names.length === 0) return { virtualNamespace: requirements };
  const only = requirements.length === 1 ? requirements[0] : undefined;
  if (only?.operator === 'In') {
    const values = [...new Set([...(only.values ?? []), ...names])];
    return { virtualNamespace: [{ ...only, values }] };
  }
  return {
    refused: `its namespaces and namespaceSelector together select a union of namespaces that one host selector cannot express; list the namespaces, or select them with ${KubernetesKeys.NamespaceName} In (...) only`,
  };
}

/** One affinity term on the host, or why it cannot be. */
function translateTerm(
  term: unknown,
  scope: PodScope,
  path: string,
): { term: unknown } | { refused: string } {
  if (!isRecord(term)) return { term };
  const {
    labelSelector,
    namespaces,
    namespaceSelector,
    matchLabelKeys: _matchLabelKeys,
    mismatchLabelKeys: _mismatchLabelKeys,
    ...rest
  } = term;
  // Without a selector the term matches no Pods wherever it looks: its namespaces mean nothing.
  if (labelSelector === undefined || labelSelector === null) return { term: rest };
  const reach = reachOf(namespaces, namespaceSelector, scope.virtualNamespace);
  if ('refused' in reach) {
    return { refused: `the Pod's affinity term ${path} cannot be translated: ${reach.refused}` };
  }
  const scoped = scopeLabelSelector(labelSelector, {
    tenant: scope.tenant,
    virtualNamespace: reach.virtualNamespace,
  });
  return { term: { ...rest, labelSelector: scoped } };
}

/** One of `podAffinity` / `podAntiAffinity` on the host, or the first term's refusal. */
function translateAffinity(
  affinity: Json,
  scope: PodScope,
  path: string,
): { affinity: Json } | { refused: string } {
  const host: Json = { ...affinity };
  if (Array.isArray(affinity[REQUIRED])) {
    const terms: unknown[] = [];
    for (const [i, term] of (affinity[REQUIRED] as unknown[]).entries()) {
      const result = translateTerm(term, scope, `${path}.${REQUIRED}[${i}]`);
      if ('refused' in result) return result;
      terms.push(result.term);
    }
    host[REQUIRED] = terms;
  }
  if (Array.isArray(affinity[PREFERRED])) {
    const weighted: unknown[] = [];
    for (const [i, entry] of (affinity[PREFERRED] as unknown[]).entries()) {
      if (!isRecord(entry) || entry.podAffinityTerm === undefined) {
        weighted.push(entry);
        continue;
      }
      const termPath = `${path}.${PREFERRED}[${i}].podAffinityTerm`;
      const result = translateTerm(entry.podAffinityTerm, scope, termPath);
      if ('refused' in result) return result;
      weighted.push({ ...entry, podAffinityTerm: result.term });
    }
    host[PREFERRED] = weighted;
  }
  return { affinity: host };
}

/** A topology spread constraint on the host: it counts Pods of its own virtual namespace only. */
function translateSpread(constraint: unknown, scope: PodScope): unknown {
  if (!isRecord(constraint)) return constraint;
  const { matchLabelKeys: _matchLabelKeys, labelSelector, ...rest } = constraint;
  if (labelSelector === undefined || labelSelector === null) return rest;
  return { ...rest, labelSelector: scopeLabelSelector(labelSelector, scope) };
}

/** The host values of the Pod-selecting fields a spec has (`affinity`, `topologySpreadConstraints`). */
export type PodSelectorFields = { fields: Json } | { refused: string };

/**
 * The host `affinity` and `topologySpreadConstraints` of a tenant Pod spec (only the fields the
 * spec has), or the Skip reason naming the first term the host cannot express. Never mutates
 * `spec`.
 */
export function podSelectorFields(spec: unknown, scope: PodScope): PodSelectorFields {
  const fields: Json = {};
  if (!isRecord(spec)) return { fields };
  if (isRecord(spec.affinity)) {
    const affinity: Json = { ...spec.affinity };
    for (const kind of POD_AFFINITIES) {
      const from = spec.affinity[kind];
      if (!isRecord(from)) continue;
      const result = translateAffinity(from, scope, `spec.affinity.${kind}`);
      if ('refused' in result) return result;
      affinity[kind] = result.affinity;
    }
    fields.affinity = affinity;
  }
  if (Array.isArray(spec.topologySpreadConstraints)) {
    fields.topologySpreadConstraints = spec.topologySpreadConstraints.map((c: unknown) =>
      translateSpread(c, scope),
    );
  }
  return { fields };
}

/** Why a Pod's affinity cannot go to the host (see {@link podSelectorFields}), or `undefined`. */
export function podSelectorRefusal(spec: unknown, scope: PodScope): string | undefined {
  const result = podSelectorFields(spec, scope);
  return 'refused' in result ? result.refused : undefined;
}
