/**
 * The Secret's module: the generic transform and path serve it as the tenant wrote it, with two
 * settings the generic code reads. It is sensitive: an error about a Secret never carries the
 * server's message, which may quote its data (`context/error-text.ts`). And the apiserver fixes
 * what an update cannot change: its `type` (credential rotation recreates it), and the content of
 * an `immutable: true` one, like a ConfigMap's; such a copy is replaced at once
 * (`object/replace.ts`).
 */
import { type KubeObject, SECRET } from '../../../ports/index.js';
import { immutableContentFields } from '../config-map/module.js';
import type { KindModule } from '../frame/kind-module.js';

/** What an update of the Secret `observed` to `desired` can never change (see the module doc). */
function secretFixedFields(desired: KubeObject, observed: KubeObject): string[] {
  const type = (desired.type ?? 'Opaque') !== (observed.type ?? 'Opaque') ? ['type'] : [];
  return [...type, ...immutableContentFields(desired, observed)];
}

/** Secrets: sensitive, and replaced when a fixed field changes. */
export const SECRET_MODULE: KindModule = {
  kind: SECRET,
  sensitive: true,
  fixedFields: secretFixedFields,
};
