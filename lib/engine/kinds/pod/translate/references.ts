/**
 * Every place a Pod spec names another object of its namespace, found by one walk. The same walk
 * lists the references (what must be synced first) and renames them (to their host copies), so
 * the two can never disagree about what a Pod refers to.
 */
import { isRecord } from '../../../../common/index.js';
import {
  CONFIG_MAP,
  type KindRef,
  PERSISTENT_VOLUME_CLAIM,
  SECRET,
} from '../../../../ports/index.js';

type Json = Record<string, unknown>;

/** The kinds a Pod can refer to by name. */
export const POD_REFERENCED_KINDS: readonly KindRef[] = [
  CONFIG_MAP,
  SECRET,
  PERSISTENT_VOLUME_CLAIM,
];

/** One reference found in a Pod spec, with the means to rename it in place. */
export interface FoundReference {
  kind: KindRef;
  name: string;
  path: string;
  optional: boolean;
  /** Writes `name` into the spec (on the walked copy). */
  set(name: string): void;
}

type Visit = (found: FoundReference) => void;

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Visits `holder[field]` when it is a non-empty name. */
function visitName(
  visit: Visit,
  kind: KindRef,
  holder: unknown,
  field: string,
  path: string,
  optional: boolean,
): void {
  if (!isRecord(holder)) return;
  const name = holder[field];
  if (typeof name !== 'string' || name === '') return;
  visit({
    kind,
    name,
    path,
    optional,
    set: (next) => {
      holder[field] = next;
    },
  });
}

/** `optional: true` on a ConfigMap or Secret source; absent means required. */
function optionalOf(holder: unknown): boolean {
  return isRecord(holder) && holder.optional === true;
}

/** Volume types whose `secretRef` names a Secret of the Pod's namespace. */
export const SECRET_REF_VOLUMES: readonly string[] = [
  'cephfs',
  'cinder',
  'rbd',
  'flexVolume',
  'iscsi',
  'scaleIO',
  'storageos',
];

/**
 * Whether a claim's data source (`dataSource`, `dataSourceRef`) is a PersistentVolumeClaim (the
 * core group): a claim to clone, a reference like a volume's claim.
 */
export function isClaimSource(ref: unknown): boolean {
  return (
    isRecord(ref) &&
    ref.kind === PERSISTENT_VOLUME_CLAIM.kind &&
    (ref.apiGroup === undefined || ref.apiGroup === '' || ref.apiGroup === null)
  );
}

/** The claim spec of an ephemeral volume (its `volumeClaimTemplate.spec`), if it has one. */
export function ephemeralClaimSpec(volume: Json): Json | undefined {
  const { ephemeral } = volume;
  const template = isRecord(ephemeral) ? ephemeral.volumeClaimTemplate : undefined;
  return isRecord(template) && isRecord(template.spec) ? template.spec : undefined;
}

/**
 * The claims an ephemeral volume's claim clones: the host's ephemeral volume controller makes the
 * claim in the host namespace, where the source is the host copy. A cross-namespace source never
 * gets here (the Pod is refused: `pod-ephemeral.ts`).
 */
function walkEphemeral(volume: Json, at: string, visit: Visit): void {
  const spec = ephemeralClaimSpec(volume);
  if (!spec) return;
  for (const field of ['dataSource', 'dataSourceRef']) {
    const where = `${at}.ephemeral.volumeClaimTemplate.spec.${field}`;
    if (isClaimSource(spec[field]))
      visitName(visit, PERSISTENT_VOLUME_CLAIM, spec[field], 'name', where, false);
  }
}

function walkVolume(volume: Json, visit: Visit): void {
  const at = `spec.volumes[${String(volume.name)}]`;
  const { configMap, secret, persistentVolumeClaim, projected, csi, azureFile } = volume;
  visitName(visit, CONFIG_MAP, configMap, 'name', `${at}.configMap`, optionalOf(configMap));
  visitName(visit, SECRET, secret, 'secretName', `${at}.secret`, optionalOf(secret));
  visitName(
    visit,
    PERSISTENT_VOLUME_CLAIM,
    persistentVolumeClaim,
    'claimName',
    `${at}.persistentVolumeClaim`,
    false,
  );
  walkEphemeral(volume, at, visit);
  if (isRecord(projected)) {
    for (const [i, source] of records(projected.sources).entries()) {
      const { configMap: cm, secret: s } = source;
      const where = `${at}.projected.sources[${i}]`;
      visitName(visit, CONFIG_MAP, cm, 'name', `${where}.configMap`, optionalOf(cm));
      visitName(visit, SECRET, s, 'name', `${where}.secret`, optionalOf(s));
    }
  }
  if (isRecord(csi)) {
    const ref = csi.nodePublishSecretRef;
    visitName(visit, SECRET, ref, 'name', `${at}.csi.nodePublishSecretRef`, false);
  }
  visitName(visit, SECRET, azureFile, 'secretName', `${at}.azureFile`, false);
  for (const type of SECRET_REF_VOLUMES) {
    const typed = volume[type];
    if (isRecord(typed)) {
      visitName(visit, SECRET, typed.secretRef, 'name', `${at}.${type}.secretRef`, false);
    }
  }
}

/** The container lists of a Pod spec, ephemeral containers included. */
export const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

function walkContainer(container: Json, list: string, visit: Visit): void {
  const at = `spec.${list}[${String(container.name)}]`;
  for (const env of records(container.env)) {
    const from = env.valueFrom;
    if (!isRecord(from)) continue;
    const { configMapKeyRef: cm, secretKeyRef: s } = from;
    const where = `${at}.env[${String(env.name)}].valueFrom`;
    visitName(visit, CONFIG_MAP, cm, 'name', `${where}.configMapKeyRef`, optionalOf(cm));
    visitName(visit, SECRET, s, 'name', `${where}.secretKeyRef`, optionalOf(s));
  }
  for (const [i, from] of records(container.envFrom).entries()) {
    const { configMapRef: cm, secretRef: s } = from;
    visitName(visit, CONFIG_MAP, cm, 'name', `${at}.envFrom[${i}].configMapRef`, optionalOf(cm));
    visitName(visit, SECRET, s, 'name', `${at}.envFrom[${i}].secretRef`, optionalOf(s));
  }
}

/**
 * Visits every reference of a Pod spec: volumes (ConfigMap, Secret, claim, projected sources, the
 * secret references of CSI and other volume types, the claim an ephemeral volume clones), `env`
 * `valueFrom` and `envFrom` of every container list, and `imagePullSecrets`. Pull secrets count as optional: the kubelet pulls
 * without a missing one (a public image still runs), and retries once it exists.
 */
export function walkPodReferences(spec: unknown, visit: Visit): void {
  if (!isRecord(spec)) return;
  for (const volume of records(spec.volumes)) walkVolume(volume, visit);
  for (const list of CONTAINER_LISTS) {
    for (const container of records(spec[list])) walkContainer(container, list, visit);
  }
  for (const [i, pull] of records(spec.imagePullSecrets).entries()) {
    visitName(visit, SECRET, pull, 'name', `spec.imagePullSecrets[${i}]`, true);
  }
}
