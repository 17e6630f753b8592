/**
 * The ConfigMap's module: the generic transform and path serve it as the tenant wrote it; what it
 * adds is one rule of the apiserver the engine must know before it writes. A ConfigMap made with
 * `immutable: true` keeps its `data`, `binaryData` and `immutable` for life: an update that
 * changes one is refused on every pass, so the copy is replaced at once (`object/replace.ts`).
 */
import { jsonEqual } from '../../../common/index.js';
import { CONFIG_MAP, type KubeObject } from '../../../ports/index.js';
import type { KindModule } from '../frame/kind-module.js';

/**
 * The fields of `observed` (an `immutable: true` ConfigMap or Secret) an update to `desired` would
 * have to change although the apiserver refuses it: `data`, `binaryData`, and `immutable` itself.
 * Empty for a copy that is not immutable.
 */
export function immutableContentFields(desired: KubeObject, observed: KubeObject): string[] {
  if (observed.immutable !== true) return [];
  const fields = ['data', 'binaryData'].filter(
    (field) => !jsonEqual(desired[field] ?? {}, observed[field] ?? {}),
  );
  if (desired.immutable !== true) fields.push('immutable');
  return fields;
}

/** ConfigMaps: an immutable one is replaced, never updated, when its content changes. */
export const CONFIG_MAP_MODULE: KindModule = {
  kind: CONFIG_MAP,
  fixedFields: immutableContentFields,
};
