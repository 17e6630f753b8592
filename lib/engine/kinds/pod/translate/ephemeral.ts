/**
 * Ephemeral volumes through the naming rule. The tenant's own ephemeral-volume controller makes
 * the claim of a Pod's ephemeral volume in the tenant, named `<pod>-<volume>` (Kubernetes'
 * `ephemeral.VolumeClaimName`), from the volume's `volumeClaimTemplate`; that claim is synced as
 * every claim is (`persistent-volume-claim.ts`: its data source renamed, `volumeName` and
 * `selector` host-owned, its storage class mapped). So the host Pod mounts the host copy of that
 * claim, a required reference like any claim volume (`references.ts` walks it), and no template
 * reaches the host: the host's controller never makes a second claim from a template the tenant
 * wrote (whose `volumeName` could take an operator's volume and whose metadata could carry
 * another tenant's reverse-mapping keys).
 *
 * The Pod waits (its Decision names the missing claim) until the claim is synced; without
 * PersistentVolumeClaim among the policy's kinds it is never created, and its Decision says so.
 */
import { isRecord } from '../../../../common/index.js';

type Json = Record<string, unknown>;

/** Kubernetes' name for the claim of ephemeral volume `volume` of Pod `pod`. */
export function ephemeralClaimName(pod: string, volume: string): string {
  return `${pod}-${volume}`;
}

/** Whether `volume` is an ephemeral volume (`ephemeral` set). */
export function isEphemeralVolume(volume: Json): boolean {
  return isRecord(volume.ephemeral);
}

/**
 * Turns an ephemeral volume into a claim volume of `claimName` (in place): the template goes,
 * the claim volume names the claim the tenant's controller made (by its host name, once renamed).
 */
export function ephemeralAsClaim(volume: Json, claimName: string): void {
  delete volume.ephemeral;
  volume.persistentVolumeClaim = { claimName };
}
