/**
 * Ephemeral volumes: the host's ephemeral volume controller makes a claim from the volume's
 * `volumeClaimTemplate` in the host namespace, so the template is translated as a claim is
 * (`persistent-volume-claim.ts`): its data source names the host copy (a claim to clone through
 * the reference walk, `pod-references.ts`, so it is a required reference; a snapshot or a
 * populator's object here), and its storage class is the one the policy maps it to.
 *
 * A data source in another namespace (`dataSourceRef.namespace`) is refused: the tenant's grant
 * for it (a ReferenceGrant in the source's namespace) is not something the host can check, and
 * naming the host copy without it would let a Pod clone any claim of its tenant.
 */
import { isRecord } from '../../../../common/index.js';
import { hostName } from '../../../names/naming.js';
import { mapStorageClass } from '../../persistent-volume-claim.js';
import type { TranslateTarget } from '../../translator.js';
import { ephemeralClaimSpec, isClaimSource } from './references.js';

type Json = Record<string, unknown>;

const SOURCES = ['dataSource', 'dataSourceRef'] as const;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/**
 * The Skip reason of a Pod with an ephemeral volume whose data source is in another namespace
 * than the Pod's (`virtualNamespace`), or `undefined`.
 */
export function ephemeralSourceRefusal(spec: unknown, virtualNamespace: string) {
  if (!isRecord(spec)) return undefined;
  for (const volume of records(spec.volumes)) {
    const ref = ephemeralClaimSpec(volume)?.dataSourceRef;
    if (!isRecord(ref) || typeof ref.namespace !== 'string') continue;
    if (ref.namespace === '' || ref.namespace === virtualNamespace) continue;
    const at = `spec.volumes[${String(volume.name)}].ephemeral.volumeClaimTemplate.spec.dataSourceRef`;
    return `its ephemeral volume's data source is in another namespace (${at}: namespace "${ref.namespace}"), which is not supported on the host: use a source in the Pod's namespace`;
  }
  return undefined;
}

/**
 * The claim templates of a host Pod spec's ephemeral volumes (in place): the storage class
 * mapped by the policy, a data source's namespace dropped when it is the Pod's own (the host
 * claim's namespace is the host's), and data sources other than claims renamed to their host
 * copies (claims are renamed with every other reference, by the walk). Run before the walk.
 */
export function ephemeralTemplatesToHost(spec: Json, target: TranslateTarget): void {
  for (const volume of records(spec.volumes)) {
    const claim = ephemeralClaimSpec(volume);
    if (!claim) continue;
    mapStorageClass(claim, target.workloads);
    for (const field of SOURCES) {
      const ref = claim[field];
      if (!isRecord(ref)) continue;
      // The refusal let only the Pod's own namespace through.
      delete ref.namespace;
      if (!isClaimSource(ref) && typeof ref.name === 'string' && ref.name !== '') {
        ref.name = hostName(ref.name, target.virtualNamespace, target.tenant);
      }
    }
  }
}
