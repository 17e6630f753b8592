/**
 * `spec.workloads.volumes`: what a tenant's Pods and claims may get of the host's storage beyond
 * the default, which reaches no storage set aside for anyone else (docs/isolation.md).
 */
import { isDnsSubdomain } from './workload-scheduling.js';

/** What a tenant's Pods and claims may get of the host's storage. */
export interface VolumeLimits {
  /**
   * CSI drivers an inline `csi` volume of a Pod may name; default none. The host node's driver
   * mounts it with the driver's own identity (a secrets store, a cloud's file system), which is
   * not the tenant's.
   */
  csiDrivers: readonly string[];
  /**
   * Host storage classes a claim's new copy may get (its class after `storageClasses` mapping);
   * absent: any named class. A claim without a class gets the host's default class and is always
   * allowed. `""` (no class: the host binds any unclaimed volume of no class, an operator's or
   * another tenant's) is allowed only when listed.
   */
  storageClasses?: readonly string[];
  /**
   * Host PersistentVolumes a claim may name in `spec.volumeName` (binding it to that volume);
   * absent: none. A name is the operator's to hand out: the host binds a claim naming a volume to
   * it whatever the volume's labels say, an operator's static volume or one kept for another tenant.
   */
  volumeNames?: readonly string[];
}

const PATH = 'spec.workloads.volumes';

/** A list of strings, each checked by `valid`; `undefined` (and a problem) otherwise. */
function strings(
  value: unknown,
  path: string,
  problems: string[],
  valid: (text: string) => boolean,
  what: string,
): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && valid(v))) {
    problems.push(`${path} must be a list of ${what}`);
    return undefined;
  }
  return [...value];
}

/** Parses `spec.workloads.volumes` (`section`, already an object); problems go to `problems`. */
export function parseVolumeLimits(
  section: Record<string, unknown>,
  problems: string[],
): VolumeLimits {
  const csiDrivers = strings(
    section.csiDrivers,
    `${PATH}.csiDrivers`,
    problems,
    (name) => name !== '',
    'non-empty strings',
  );
  const storageClasses = strings(
    section.storageClasses,
    `${PATH}.storageClasses`,
    problems,
    (name) => name === '' || isDnsSubdomain(name),
    'storage class names (or "" for no class)',
  );
  const volumeNames = strings(
    section.volumeNames,
    `${PATH}.volumeNames`,
    problems,
    isDnsSubdomain,
    'PersistentVolume names',
  );
  return {
    csiDrivers: csiDrivers ?? [],
    ...(storageClasses ? { storageClasses } : {}),
    ...(volumeNames ? { volumeNames } : {}),
  };
}
