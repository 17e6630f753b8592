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
import { ephemeralAsClaim, ephemeralClaimName, isEphemeralVolume } from './ephemeral.js';

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
 * An ephemeral volume names the claim the tenant's ephemeral-volume controller made for it
 * (`<pod>-<volume>`, `ephemeral.ts`): a required reference, renamed by turning the volume into a
 * claim volume of the host copy, so the template never reaches the host.
 */
function walkEphemeral(volume: Json, at: string, podName: string, visit: Visit): void {
  if (!isEphemeralVolume(volume)) return;
  visit({
    kind: PERSISTENT_VOLUME_CLAIM,
    name: ephemeralClaimName(podName, String(volume.name)),
    path: `${at}.ephemeral`,
    optional: false,
    set: (next) => ephemeralAsClaim(volume, next),
  });
}

function walkVolume(volume: Json, podName: string, visit: Visit): void {
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
  walkEphemeral(volume, at, podName, visit);
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
 * secret references of CSI and other volume types, the claim an ephemeral volume's controller
 * made: its name is derived from `podName`, the Pod's tenant name), `env` `valueFrom` and
 * `envFrom` of every container list, and `imagePullSecrets`. Pull secrets count as optional: the
 * kubelet pulls without a missing one (a public image still runs), and retries once it exists.
 */
export function walkPodReferences(spec: unknown, podName: string, visit: Visit): void {
  if (!isRecord(spec)) return;
  for (const volume of records(spec.volumes)) walkVolume(volume, podName, visit);
  for (const list of CONTAINER_LISTS) {
    for (const container of records(spec[list])) walkContainer(container, list, visit);
  }
  for (const [i, pull] of records(spec.imagePullSecrets).entries()) {
    visitName(visit, SECRET, pull, 'name', `spec.imagePullSecrets[${i}]`, true);
  }
}
