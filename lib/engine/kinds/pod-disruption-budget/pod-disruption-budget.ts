/**
 * The PodDisruptionBudget translator. On the host a budget counts, and guards against eviction,
 * the Pods of its namespace that its `spec.selector` selects; one host namespace holds the Pods of
 * every virtual namespace of a tenant (and of other tenants), so a tenant budget on `app: web`
 * copied as written would count other tenants' Pods towards its minimum and block their
 * evictions (a drain of a node would stall on Pods the tenant does not own). Its selector is
 * scoped here like every other selector (`selectors.ts`): keys through the one key function, and
 * the tenant and virtual-namespace labels every host Pod carries required. `minAvailable`,
 * `maxUnavailable` and `unhealthyPodEvictionPolicy` mean the same on the host and stay as written.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, POD_DISRUPTION_BUDGET } from '../../../ports/index.js';
import type { KindModule } from '../frame/kind-module.js';
import { scopeLabelSelector } from '../frame/selectors.js';
import type { KindTranslator, TranslateTarget } from '../frame/translator.js';

/**
 * The host spec of a budget: `spec` with its selector scoped to the tenant and virtual namespace.
 *
 * An empty selector (`{}`: in `policy/v1`, every Pod of the namespace) becomes every Pod of the
 * virtual namespace, never of the shared host namespace. An absent (or null) selector selects no
 * Pod at all in `policy/v1`, in the tenant as on the host (the disruption controller and the
 * eviction API both read it as "nothing"): it stays absent, so the copy protects exactly what the
 * tenant's budget protects (nothing), rather than silently every Pod of the virtual namespace.
 */
export function translatePodDisruptionBudgetSpec(
  spec: unknown,
  scope: { tenant: string; virtualNamespace: string },
): unknown {
  if (!isRecord(spec) || spec.selector === undefined || spec.selector === null) return spec;
  return { ...spec, selector: scopeLabelSelector(spec.selector, scope) };
}

/** PodDisruptionBudgets: the selector scoped to the tenant and virtual namespace, nothing else. */
export const PDB_TRANSLATOR: KindTranslator = {
  kind: POD_DISRUPTION_BUDGET,
  toHost(object: KubeObject, target: TranslateTarget) {
    const spec = translatePodDisruptionBudgetSpec(object.spec, {
      tenant: target.tenant,
      virtualNamespace: target.virtualNamespace,
    });
    if (spec !== undefined) object.spec = spec;
    return object;
  },
};

/**
 * The kind's room: its translator alone. The copy's status is the host disruption controller's
 * (stripped by the generic transform like every status) and does not come back: the tenant's
 * budget has a status of its own, computed in the tenant cluster from the tenant's Pods.
 */
export const PDB_MODULE: KindModule = {
  kind: PDB_TRANSLATOR.kind,
  translator: PDB_TRANSLATOR,
};
