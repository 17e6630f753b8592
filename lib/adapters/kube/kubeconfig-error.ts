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
