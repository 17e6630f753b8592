/**
 * The ServiceAccount translator: a plain copy, but for what names other objects. `secrets` lists
 * the tenant's token Secrets, which are never synced (`policy/scope.ts`) and which the host's
 * token controller must not take for its own: dropped. `imagePullSecrets` are tenant Secrets, so
 * they name the host copies, like a Pod's.
 */
import { isRecord } from '../../../common/index.js';
import { type KubeObject, SERVICE_ACCOUNT } from '../../../ports/index.js';
import { hostName } from '../../names/naming.js';
import type { KindModule } from '../frame/kind-module.js';
import type { KindTranslator, TranslateTarget } from '../frame/translator.js';

/** The host service account: token Secrets dropped, pull Secrets renamed. */
export function serviceAccountToHost(object: KubeObject, target: TranslateTarget): KubeObject {
  delete object.secrets;
  if (Array.isArray(object.imagePullSecrets)) {
    for (const ref of object.imagePullSecrets) {
      if (isRecord(ref) && typeof ref.name === 'string') {
        ref.name = hostName(ref.name, target.virtualNamespace, target.tenant);
      }
    }
  }
  return object;
}

/** ServiceAccounts: a copy without the tenant's token Secrets. */
export const SERVICE_ACCOUNT_TRANSLATOR: KindTranslator = {
  kind: SERVICE_ACCOUNT,
  toHost: serviceAccountToHost,
};

/** ServiceAccounts: the translator alone. */
export const SERVICE_ACCOUNT_MODULE: KindModule = {
  kind: SERVICE_ACCOUNT_TRANSLATOR.kind,
  translator: SERVICE_ACCOUNT_TRANSLATOR,
};
