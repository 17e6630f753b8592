/** The two failures of a kubeconfig: it cannot be loaded from its source, or it cannot be used. */
import type { ClusterRole } from '../../ports/index.js';

/**
 * A kubeconfig that cannot be used: malformed YAML, no contexts, an unknown `--context`, a context
 * without a cluster or user, a cluster without a server.
 *
 * The message names the kubeconfig's `origin` (a file path or a secret id) and what is wrong. It
 * never quotes the kubeconfig's content: kubeconfigs carry credentials.
 */
export class KubeconfigError extends Error {
  /** Where the kubeconfig came from (safe to print). */
  readonly origin: string;
  /** What is wrong, without the origin. */
  readonly problem: string;

  constructor(origin: string, problem: string) {
    super(`kubeconfig ${origin}: ${problem}`);
    this.name = 'KubeconfigError';
    this.origin = origin;
    this.problem = problem;
  }
}

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
