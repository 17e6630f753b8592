import { readFile } from 'node:fs/promises';
import type { ClusterRole, KubeconfigSource, KubeconfigText } from '../ports/index.js';
import { type ControlPlaneState, ensureControlPlane, type StartOptions } from './control-plane.js';
import { defaultStateDir } from './paths.js';

export * from './binaries.js';
export * from './control-plane.js';
export * from './errors.js';
export * from './paths.js';
export * from './users.js';
export * from './versions.js';
export * from './wake.js';
export * from './workload-objects.js';
export type { ComponentProcess } from './workloads.js';

/**
 * The embedded local default: the long-lived tenant + host pair in the user's state directory,
 * started (and built) on first use.
 */
export function ensureLocalClusters(
  options: Partial<StartOptions> = {},
): Promise<ControlPlaneState> {
  return ensureControlPlane({ stateDir: defaultStateDir(), ...options });
}

/** Kubeconfigs of a local control plane, as a {@link KubeconfigSource}. */
export class LocalKubeconfigSource implements KubeconfigSource {
  constructor(private readonly state: ControlPlaneState) {}

  async load(role: ClusterRole): Promise<KubeconfigText> {
    const path = this.state.clusters[role].kubeconfig;
    return { text: await readFile(path, 'utf8'), origin: path };
  }
}
