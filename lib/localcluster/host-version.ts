/**
 * Which Kubernetes release the local host runs: the pinned one, or another picked with
 * `TENANTPLANE_KUBERNETES_VERSION` to try the engine against an older host (docs/versions.md).
 * The tenant side always runs the pinned release: what varies in production is the host.
 */
import { type BinaryPaths, ensureBinaries } from './binaries.js';
import { LocalClusterError } from './errors.js';
import { KUBERNETES_VERSION, KUBERNETES_VERSION_ENV, OLDEST_HOST_MINOR } from './versions.js';

/**
 * The host's release from the environment (`1.33.13`, with or without a leading `v`), or the
 * pinned one. Throws a {@link LocalClusterError} for a malformed or too old version rather
 * than building something no test covers.
 */
export function hostKubernetesVersion(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env[KUBERNETES_VERSION_ENV]?.trim();
  if (!raw) return KUBERNETES_VERSION;
  const match = /^v?(1)\.(\d+)\.(\d+)$/.exec(raw);
  if (!match)
    throw new LocalClusterError(
      `${KUBERNETES_VERSION_ENV}=${raw} is not a release like 1.33.13 (major.minor.patch)`,
    );
  if (Number(match[2]) < OLDEST_HOST_MINOR)
    throw new LocalClusterError(
      `${KUBERNETES_VERSION_ENV}=${raw}: the local host builds releases from 1.${OLDEST_HOST_MINOR} on`,
    );
  return `${match[1]}.${match[2]}.${match[3]}`;
}

/** The minor number of a release (`1.33.13` → 33). */
export function kubernetesMinor(version: string): number {
  return Number(version.split('.')[1]);
}

/** The binaries cluster `c` runs: the host's release may differ from the tenant's. */
export function binariesOf(
  plane: { binaries: BinaryPaths; hostBinaries?: BinaryPaths },
  c: 'tenant' | 'host',
): BinaryPaths {
  return c === 'host' ? (plane.hostBinaries ?? plane.binaries) : plane.binaries;
}

/**
 * The binaries of both sides, built on first use: the pinned release's, and the host's when
 * `TENANTPLANE_KUBERNETES_VERSION` picks another.
 */
export async function ensurePlaneBinaries(
  log: (line: string) => void,
): Promise<{ hostVersion: string; binaries: BinaryPaths; hostBinaries?: BinaryPaths }> {
  const hostVersion = hostKubernetesVersion();
  const binaries = await ensureBinaries({ log });
  if (hostVersion === KUBERNETES_VERSION) return { hostVersion, binaries };
  return {
    hostVersion,
    binaries,
    hostBinaries: await ensureBinaries({ version: hostVersion, log }),
  };
}
