import type { ClusterRole } from '../../ports/index.js';

/**
 * A kubeconfig could not be loaded from its source (a missing file or secret, no access, an empty
 * or binary secret). The message names the role and the origin (path or secret id) and never
 * contains the content.
 */
export class KubeconfigSourceError extends Error {
  readonly role: ClusterRole;
  /** A file path or a secret id (safe to print). */
  readonly origin: string;

  constructor(role: ClusterRole, origin: string, problem: string, options?: { cause?: unknown }) {
    super(`${role} kubeconfig ${origin}: ${problem}`, options);
    this.name = 'KubeconfigSourceError';
    this.role = role;
    this.origin = origin;
  }
}
